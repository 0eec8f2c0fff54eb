#!/usr/bin/env python3
"""Compares the merged accounts of `aggctl status --json` with merge_baseline.py's output.

    compare_accounts.py AGGCTL_JSON REFERENCE_JSON

Dates are compared as instants (the reference echoes them as written, aggctl writes canonical UTC), and
the e-mail case-insensitively (the reference prints the normalised key, aggctl the winner's spelling).
Exits 0 and prints the number of accounts when they agree; exits 1 naming the first difference.
"""
import datetime as dt
import json
import sys

FIELDS = ["providerID", "plan", "deviceID", "deviceName", "seenOn", "stale", "clockSkew", "error"]
WINDOW_FIELDS = ["usedPercent", "remainingPercent", "level", "windowMinutes"]


def instant(text):
    if text is None:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def normalised(account):
    out = {field: account.get(field) for field in FIELDS}
    email = account.get("accountEmail")
    out["accountEmail"] = email.strip().lower() if email else None
    out["lastUpdated"] = instant(account["lastUpdated"])
    for name in ("session", "weekly"):
        window = account.get(name)
        out[name] = None if window is None else {
            **{f: window.get(f) for f in WINDOW_FIELDS}, "resetsAt": instant(window.get("resetsAt"))}
    return out


def main():
    with open(sys.argv[1]) as f:
        mine = json.load(f)["accounts"]
    with open(sys.argv[2]) as f:
        reference = json.load(f)["accounts"]
    if len(mine) != len(reference):
        print(f"different account counts: aggctl {len(mine)}, reference {len(reference)}")
        return 1
    for index, (a, b) in enumerate(zip(mine, reference)):
        na, nb = normalised(a), normalised(b)
        if na != nb:
            diff = {k: (na[k], nb[k]) for k in na if na[k] != nb[k]}
            print(f"account {index} differs (aggctl, reference): {diff}")
            return 1
    print(f"{len(mine)} accounts agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
