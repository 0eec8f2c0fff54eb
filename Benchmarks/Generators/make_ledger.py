#!/usr/bin/env python3
"""Writes each device's ledger beside a generated store's records: `ledger/<deviceID>/<YYYY-MM>.json`,
as docs/format.md describes the ledger, for the benchmarks of `cost` and of reading the month.

    make_ledger.py STORE [--days 90] [--now 2026-11-30T12:00:00Z] [--seed 11]

For every `<deviceID>.json` in STORE: rows for the last --days days before --now, a person's working
hours on most days (four to eight of them, two models an hour out of the provider's few), each with
tokens by kind and a cost, a model in twenty unpriced (cost null). The same seed writes the same bytes.
Prints the rows and bytes written.
"""
import argparse
import json
import os
import random
from datetime import datetime, timedelta, timezone

MODELS = {
    "claude": [("claude-opus-4-6", 5e-6), ("claude-sonnet-4-5", 3e-6), ("claude-haiku-4-5", 1e-6)],
    "codex": [("gpt-5", 1.25e-6), ("gpt-5-mini", 2.5e-7), ("gpt-5.2-codex", 1.75e-6)],
    "gemini": [("gemini-3-flash-preview", 5e-7), ("gemini-2.5-pro", 1.25e-6)],
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--now", default="2026-11-30T12:00:00Z")
    parser.add_argument("--seed", type=int, default=11)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    now = datetime.strptime(options.now, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    devices = sorted(name[:-5] for name in os.listdir(options.store) if name.endswith(".json"))
    rows_written = bytes_written = 0
    for device in devices:
        providers = rng.sample(sorted(MODELS), rng.randint(1, 3))
        email = f"user{rng.randrange(400):04d}@example.com"
        months = {}
        for back in range(options.days, -1, -1):
            day = (now - timedelta(days=back)).replace(hour=0, minute=0, second=0)
            if rng.random() < 0.3:
                continue
            start = rng.randint(6, 14)
            for hour in range(start, start + rng.randint(4, 8)):
                at = day + timedelta(hours=hour)
                if at >= now:
                    break
                provider = rng.choice(providers)
                for model, rate in rng.sample(MODELS[provider], min(2, len(MODELS[provider]))):
                    inputs, outputs = rng.randint(1000, 90000), rng.randint(200, 20000)
                    cache_read, cache_write = rng.randint(0, 900000), rng.randint(0, 60000)
                    unpriced = rng.random() < 0.05
                    cost = None if unpriced else round((inputs + cache_write * 1.25 + cache_read * 0.1) * rate + outputs * rate * 5, 9)
                    row = {"at": at.strftime("%Y-%m-%dT%H:00:00Z"), "providerID": provider, "accountEmail": email,
                           "model": model + ("-preview-x" if unpriced else ""), "inputTokens": inputs,
                           "outputTokens": outputs, "cacheWriteTokens": cache_write, "cacheReadTokens": cache_read,
                           "costUSD": cost}
                    if provider != "claude":
                        row["reasoningTokens"] = outputs // 4
                    months.setdefault(at.strftime("%Y-%m"), []).append(row)
        folder = os.path.join(options.store, "ledger", device)
        os.makedirs(folder, exist_ok=True)
        for month, rows in months.items():
            rows.sort(key=lambda r: (r["at"], r["providerID"], r["accountEmail"], r["model"]))
            document = {"schemaVersion": 1, "deviceID": device, "month": month, "generatedAt": options.now,
                        "pricesAsOf": "2026-12-07", "rows": rows}
            data = (json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n").encode()
            with open(os.path.join(folder, month + ".json"), "wb") as f:
                f.write(data)
            rows_written += len(rows)
            bytes_written += len(data)
    print(rows_written, bytes_written)


if __name__ == "__main__":
    main()
