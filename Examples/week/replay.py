#!/usr/bin/env python3
"""Replays a week of the example machines publishing, so that a demo store has history to show.

    replay.py AGGCTL STORE STATE_ROOT

The laptop and the studio Mac (Examples/store) publish their accounts every two hours, taking turns,
from 2026-11-23 noon to 2026-11-30 noon UTC, each with its own state directory under STATE_ROOT, through
`aggctl publish --from ... --now ...`: aggctl's own sampling makes the history. The figures follow a
working week (busy 08-20 UTC on weekdays, quiet otherwise) and end on the example records' own figures,
which the last publish of each machine writes as they are, with 30 days of daily tokens. The cloud box's
record is copied as it is (a stale machine). Deterministic.
"""
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys

aggctl, store, state_root = (os.path.abspath(p) for p in sys.argv[1:4])
examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "store")
UTC = dt.timezone.utc
START = dt.datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
STEP = dt.timedelta(hours=2)
MACHINES = ["laptop-9f8e7d6c", "studio-mac-1a2b3c4d"]


def parse(text):
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def activity(moment):
    """How busy an hour is: a working week."""
    busy = moment.weekday() < 5 and 8 <= moment.hour < 20
    return 1.0 if busy else 0.2


def work(start, end):
    """Hours of work between two moments, weighted by activity."""
    total, moment = 0.0, start
    while moment < end:
        total += activity(moment)
        moment += dt.timedelta(hours=1)
    return total


def weekly(entry, final_at, moment):
    """The weekly window at `moment`: rising with work to the example's figure at its own time; the
    week before ends near 88 %."""
    reset = parse(entry["weekly"]["resetsAt"])
    start = reset - dt.timedelta(days=7)
    if moment >= start:
        used = entry["weekly"]["usedPercent"] * work(start, moment) / max(1.0, work(start, final_at))
        return {"usedPercent": round(min(100, used), 1), "windowMinutes": 10080, "resetsAt": iso(reset)}
    before = start - dt.timedelta(days=7)
    used = 88 * work(before, moment) / work(before, start)
    return {"usedPercent": round(used, 1), "windowMinutes": 10080, "resetsAt": iso(start)}


def session(entry, moment, rng):
    """The session window at `moment`: 5-hour windows back from the example's, busy ones used hard."""
    reset = parse(entry["session"]["resetsAt"])
    while reset - dt.timedelta(hours=5) > moment:
        reset -= dt.timedelta(hours=5)
    elapsed = (moment - (reset - dt.timedelta(hours=5))).total_seconds() / 3600
    rate = rng.choice([4, 8, 15, 25]) * activity(moment)
    return {"usedPercent": round(min(100, rate * elapsed), 1), "windowMinutes": 300, "resetsAt": iso(reset)}


def daily(entry, end, rng):
    """30 days of daily tokens (and cost, where the example has cost) ending on the example's day."""
    days = []
    rate = None
    if entry.get("costUSD", {}).get("today") and entry.get("tokens", {}).get("today"):
        rate = entry["costUSD"]["today"] / entry["tokens"]["today"]
    for back in range(29, -1, -1):
        day = end - dt.timedelta(days=back)
        tokens = entry["tokens"]["today"] if back == 0 else int(
            entry["tokens"]["today"] * (1.1 if day.weekday() < 5 else 0.3) * rng.uniform(0.5, 1.4))
        item = {"date": day.strftime("%Y-%m-%d"), "tokens": tokens}
        if rate:
            item["costUSD"] = round(tokens * rate, 2)
        days.append(item)
    return days


def publish(machine, providers, at, name):
    path = os.path.join(state_root, machine + ".input.json")
    with open(path, "w") as out:
        json.dump({"providers": providers}, out)
    environment = dict(os.environ, XDG_STATE_HOME=os.path.join(state_root, machine))
    subprocess.run([aggctl, "publish", "--store", store, "--from", path, "--device-id", machine,
                    "--device-name", name, "--now", iso(at)], check=True, env=environment,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    rng = random.Random(7)
    os.makedirs(store, exist_ok=True)
    os.makedirs(state_root, exist_ok=True)
    shutil.copy(os.path.join(examples, "cloud-box-0c0ffee0.json"), store)
    records = {m: json.load(open(os.path.join(examples, m + ".json"))) for m in MACHINES}
    finals = {m: max(parse(p["lastUpdated"]) for p in records[m]["providers"]) for m in MACHINES}
    step = 0
    moment = START
    while moment < min(finals.values()) - dt.timedelta(minutes=30):
        machine = MACHINES[step % 2]
        providers = []
        for entry in records[machine]["providers"]:
            figures = {k: v for k, v in entry.items() if k not in ("tokens", "costUSD")}
            figures["lastUpdated"] = iso(moment)
            figures["weekly"] = weekly(entry, parse(entry["lastUpdated"]), moment)
            figures["session"] = session(entry, moment, rng)
            providers.append(figures)
        publish(machine, providers, moment, records[machine]["deviceName"])
        moment += STEP
        step += 1
    for machine in MACHINES:
        providers = []
        for entry in records[machine]["providers"]:
            final = dict(entry)
            if "tokens" in entry:
                final["tokens"] = dict(entry["tokens"], daily=daily(entry, finals[machine], rng))
            providers.append(final)
        publish(machine, providers, parse(records[machine]["generatedAt"]), records[machine]["deviceName"])


if __name__ == "__main__":
    main()
