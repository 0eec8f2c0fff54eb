#!/usr/bin/env python3
"""The merge as someone would script it without aggctl: the baseline aggctl's speed is measured against,
and a second opinion on who wins (`compare_accounts.py` holds the two to the same answer).

    merge_baseline.py STORE_DIR [--now 2026-11-30T12:00:00Z] [--stale-after 3600] [--max-skew 300]

Reads every record of a folder store with the json module, keeps per provider and account (trimmed,
lowercased; an entry without one is its device's own) the newest figures: not clock-skewed first, then
the newest `lastUpdated`, then `generatedAt`, then the smaller device id. A record that cannot be read is
a problem, and the rest merges. Prints the accounts, sorted as `status --json` sorts them, as JSON.
"""
import argparse
import json
import os
import sys
from datetime import datetime, timezone

ID_CHARACTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def moment(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def levelled(usage_window, read_at, now):
    if not usage_window:
        return None
    used = float(usage_window["usedPercent"])
    left = min(100.0, max(0.0, 100.0 - used))
    level = "depleted" if left <= 0.0001 else "critical" if left <= 10 else "warning" if left <= 25 else "ok"
    # Its reset passed since the figures were read: they are not current.
    resets = usage_window.get("resetsAt")
    if resets and read_at < moment(resets) <= now:
        level = "unknown"
    return {"usedPercent": used, "remainingPercent": left, "level": level,
            "windowMinutes": usage_window.get("windowMinutes"), "resetsAt": usage_window.get("resetsAt")}


def read_record(path, name):
    if os.path.getsize(path) > 32 * 1024 * 1024:
        raise ValueError("over 32 MiB")
    with open(path, "rb") as f:
        record = json.load(f)
    device = record.get("deviceID") or name[:-len(".json")]
    if not device or device.startswith(".") or len(device) > 128 or not set(device) <= ID_CHARACTERS:
        raise ValueError("invalid deviceID")
    return record, device


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("--now")
    parser.add_argument("--stale-after", type=float, default=3600)
    parser.add_argument("--max-skew", type=float, default=300)
    options = parser.parse_args()
    now = moment(options.now) if options.now else datetime.now(timezone.utc)
    winners, devices_of, problems = {}, {}, []
    for name in sorted(os.listdir(options.store)):
        if name.startswith(".") or not name.endswith(".json"):
            continue
        try:
            record, device = read_record(os.path.join(options.store, name), name)
            generated = moment(record["generatedAt"])
            for usage in record["providers"]:
                email = (usage.get("accountEmail") or "").strip().lower()
                key = (usage["providerID"], email or "device:" + device)
                updated = moment(usage["lastUpdated"])
                skewed = (updated - now).total_seconds() > options.max_skew
                # Larger ranks win; the smaller device id wins a tie, so its characters count negatively.
                rank = (not skewed, updated, generated, [-ord(c) for c in device])
                devices_of.setdefault(key, set()).add(device)
                if key not in winners or rank > winners[key][0]:
                    winners[key] = (rank, usage, device, record.get("deviceName"), skewed, updated)
        except Exception as error:  # one bad record never stops the merge
            problems.append({"file": name, "reason": str(error)})
    accounts = []
    for key, (_, usage, device, device_name, skewed, updated) in winners.items():
        accounts.append({
            "providerID": usage["providerID"],
            "accountEmail": None if key[1].startswith("device:") else key[1],
            "plan": usage.get("plan"), "session": levelled(usage.get("session"), updated, now),
            "weekly": levelled(usage.get("weekly"), updated, now), "deviceID": device, "deviceName": device_name,
            "lastUpdated": usage["lastUpdated"], "seenOn": sorted(devices_of[key]),
            "stale": (now - updated).total_seconds() > options.stale_after, "clockSkew": skewed,
            "error": usage.get("error"),
        })
    accounts.sort(key=lambda a: (a["providerID"], a["accountEmail"] is None, a["accountEmail"] or "", a["deviceID"]))
    json.dump({"now": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "accounts": accounts, "problems": problems}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
