#!/usr/bin/env python3
"""Writes a store of generated records for the benchmarks: one DeviceSnapshot per device, as
docs/format.md describes them.

    make_store.py OUT [--devices 100] [--providers 4] [--accounts N] [--days 30] [--samples 48] [--seed 7]
                      [--now 2026-11-30T12:00:00Z]

The same person works on several machines, so every (provider, account) pair turns up on a few devices
with figures read at different moments: the merge has winners to pick and ledgers to add up. One entry
in twenty has no account, as a signed-out agent's has none. Each entry carries `--days` days of daily
tokens and cost and `--samples` weekly samples three hours apart (112 is two weeks); Claude's entries
carry two per-model weekly windows (version 1's `modelWeekly`), or with `--limits N` every entry N
limits (version 2). The same seed writes the same bytes. Prints the bytes written.
"""
import argparse
import json
import os
import random
from datetime import datetime, timedelta, timezone

PROVIDER_IDS = ["claude", "codex", "cursor", "gemini", "copilot", "windsurf", "amp", "factory", "zai", "kimi"]
PLAN_NAMES = ["Pro", "Max 5x", "Max 20x", "Plus", "Team", "Free"]


def stamp(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def window(used, minutes, resets):
    return {"usedPercent": used, "windowMinutes": minutes, "resetsAt": stamp(resets)}


LIMITS = [("opus-weekly", "Opus", 10080, False), ("spark-session", "Spark", 300, False),
          ("premium-monthly", "Premium requests", 43200, True), ("spend-monthly", "Spend", 43200, True)]


def limits(rng, count, read_at):
    # From a generator of their own, so that a store with limits and one without differ in nothing else.
    # Past the first four, ids get the round's number: a limit's id is unique in its entry.
    return [{"id": ident if index < len(LIMITS) else f"{ident}-{index // len(LIMITS)}", "label": label,
             "windowMinutes": minutes,
             "usedPercent": rng.choice([100.0, round(rng.uniform(0, 100), 2)]),
             "resetsAt": stamp(read_at + timedelta(minutes=rng.randint(1, minutes))),
             "used": round(rng.uniform(0, 300), 2), "limit": 300.0,
             "unit": "USD" if ident.startswith("spend") else "requests", "binding": binding}
            for index, (ident, label, minutes, binding) in enumerate((LIMITS * (count // len(LIMITS) + 1))[:count])]


def entry(rng, provider, account, read_at, now, days, samples):
    week_resets = read_at + timedelta(days=rng.uniform(0, 7))
    # A window is often exactly used up or untouched: the levels' edges get their share.
    session_used = rng.choice([0.0, 100.0, round(rng.uniform(0, 100), 2)])
    usage = {
        "providerID": provider,
        "accountEmail": account,
        "plan": rng.choice(PLAN_NAMES),
        "lastUpdated": stamp(read_at),
        "session": window(session_used, 300, read_at + timedelta(minutes=rng.randint(1, 300))),
        "weekly": window(round(rng.uniform(0, 100), 2), 10080, week_resets),
        "tokens": {
            "today": rng.randint(0, 5_000_000),
            "last30Days": rng.randint(0, 90_000_000),
            "daily": [{"date": (now - timedelta(days=back)).strftime("%Y-%m-%d"),
                       "tokens": rng.randint(0, 4_000_000), "costUSD": round(rng.uniform(0, 80), 4)}
                      for back in range(days)],
        },
        "costUSD": {"today": round(rng.uniform(0, 50), 4), "last30Days": round(rng.uniform(0, 900), 4)},
        "weeklySamples": [{"at": stamp(read_at - timedelta(hours=3 * back)),
                           "usedPercent": round(rng.uniform(0, 100), 2), "resetsAt": stamp(week_resets)}
                          for back in range(samples)],
    }
    if account is None:
        del usage["accountEmail"]
    if provider == "claude":
        usage["modelWeekly"] = [{"name": model, "window": window(round(rng.uniform(0, 100), 2), 10080, week_resets)}
                                for model in ("opus", "sonnet")]
    return usage


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--devices", type=int, default=100)
    parser.add_argument("--providers", type=int, default=4)
    parser.add_argument("--accounts", type=int, default=0, help="accounts per provider (default: devices / 3 + 1)")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--samples", type=int, default=48)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--now", default="2026-11-30T12:00:00Z")
    parser.add_argument("--limits", type=int, default=-1,
                        help="give every entry this many limits (schema version 2) instead of Claude's per-model weeks")
    parser.add_argument("--no-weekly", action="store_true",
                        help="leave every entry's weekly window out (the same records otherwise): what one window costs")
    options = parser.parse_args()
    rng = random.Random(options.seed)
    limit_rng = random.Random(options.seed + 1)
    now = datetime.strptime(options.now, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    accounts = options.accounts or options.devices // 3 + 1
    os.makedirs(options.out, exist_ok=True)
    written = 0
    for index in range(options.devices):
        device = f"dev-{index:05d}-{rng.getrandbits(32):08x}"
        generated = now - timedelta(seconds=rng.randint(0, 7200))
        providers = []
        for provider in PROVIDER_IDS[:options.providers]:
            number = rng.randrange(accounts)
            account = None if rng.random() < 0.05 else f"user{number:04d}@example.com"
            read_at = generated - timedelta(seconds=rng.randint(0, 600))
            usage = entry(rng, provider, account, read_at, now, options.days, options.samples)
            if options.limits >= 0:
                usage.pop("modelWeekly", None)
                if options.limits > 0:
                    usage["limits"] = limits(limit_rng, options.limits, read_at)
            if options.no_weekly:
                del usage["weekly"]
            providers.append(usage)
        record = {"schemaVersion": 2 if options.limits >= 0 else 1, "deviceID": device, "deviceName": f"host-{index}", "appVersion": "aggctl 0.1.0",
                  "generatedAt": stamp(generated), "providers": providers}
        data = json.dumps(record, indent=1).encode()
        with open(os.path.join(options.out, device + ".json"), "wb") as f:
            f.write(data)
        written += len(data)
    print(written)


if __name__ == "__main__":
    main()
