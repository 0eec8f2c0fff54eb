#!/usr/bin/env python3
"""Writes a Claude Code config folder of generated session logs for the collector benchmark, with the
totals a reader must find.

    make_claude_logs.py --out DIR [--sessions 200] [--projects 12] [--assistant-lines 200000]
                        [--dup-rate 0.1] [--user-ratio 0.6] [--days 7] [--end ISO] [--limit-messages 3]
                        [--version 2.0.14] [--seed 42]

DIR/projects/<project>/<session>.jsonl, in Claude Code 2.x's shapes: user lines, assistant lines with
`message.id`, `requestId`, the model and its usage (input, cache creation with its 5-minute and 1-hour
parts, cache read, output), and a closing summary line. A share of the assistant lines (--dup-rate)
repeat the response before them with the same ids and usage, as Claude Code writes one response over
several lines; a few sessions end on Claude Code's own "Claude AI usage limit reached|<epoch>" line
(model `<synthetic>`, no usage). DIR/manifest.json holds the totals counted once per response and the
cost at the prices below (Anthropic's published rates, as LiteLLM's table, which aggctl carries, has them).
The same seed writes the same bytes.
"""
import argparse
import json
import os
import random
import uuid
from datetime import datetime, timedelta, timezone

# Dollars per million tokens: input, output, cache write (5 minutes), cache read.
PRICES = {
    "claude-sonnet-4-5-20250929": (3.0, 15.0, 3.75, 0.30),
    "claude-opus-4-6": (5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-5-20251101": (5.0, 25.0, 6.25, 0.50),
    "claude-haiku-4-5-20251001": (1.0, 5.0, 1.25, 0.10),
}
# How often each model answers.
SHARES = [("claude-sonnet-4-5-20250929", 0.55), ("claude-opus-4-5-20251101", 0.25),
          ("claude-haiku-4-5-20251001", 0.12), ("claude-opus-4-6", 0.08)]
VOCABULARY = ("the of and to in is for on that with this code file test build run function value error "
              "change update module return type struct swift parse line token cache usage block session model").split()
COUNTED = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]


def stamp(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def new_uuid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def identifier(rng, prefix):
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789"
    return prefix + "".join(rng.choice(letters) for _ in range(24))


def prose(rng, length):
    words, size = [], 0
    while size < length:
        word = rng.choice(VOCABULARY)
        words.append(word)
        size += len(word) + 1
    return " ".join(words)[:max(0, length)]


def model(rng):
    pick, sum_of_shares = rng.random(), 0.0
    for name, share in SHARES:
        sum_of_shares += share
        if pick <= sum_of_shares:
            return name
    return SHARES[0][0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--projects", type=int, default=12)
    parser.add_argument("--assistant-lines", type=int, default=200_000, help="assistant lines, repeats included")
    parser.add_argument("--dup-rate", type=float, default=0.10)
    parser.add_argument("--user-ratio", type=float, default=0.6, help="user lines per assistant line")
    parser.add_argument("--days", type=float, default=7.0)
    parser.add_argument("--end", default=None, help="the last moment (default: now, UTC)")
    parser.add_argument("--limit-messages", type=int, default=3)
    parser.add_argument("--version", default="2.0.14")
    parser.add_argument("--seed", type=int, default=42)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    end = (datetime.fromisoformat(options.end.replace("Z", "+00:00")) if options.end
           else datetime.now(timezone.utc)).astimezone(timezone.utc)
    earliest = end - timedelta(days=options.days)
    projects_folder = os.path.join(options.out, "projects")
    os.makedirs(projects_folder, exist_ok=True)
    lines_per_session = [options.assistant_lines // options.sessions] * options.sessions
    for extra in range(options.assistant_lines % options.sessions):
        lines_per_session[extra] += 1
    folders = [f"/home/dev/work/project-{number:02d}" for number in range(options.projects)]
    totals = dict.fromkeys(COUNTED, 0)
    per_model = {}
    responses = repeats = 0
    cost = 0.0
    written_bytes = 0
    first = last = None
    limited = set(rng.sample(range(options.sessions), min(options.limit_messages, options.sessions)))
    for number in range(options.sessions):
        cwd = rng.choice(folders)
        session = new_uuid(rng)
        os.makedirs(os.path.join(projects_folder, cwd.replace("/", "-")), exist_ok=True)
        # Starts spread over the days, leaving room for the session's length (about 21 s a response).
        length = lines_per_session[number] * (21 + options.user_ratio * 10.5) * 1.6
        at = earliest + timedelta(seconds=rng.uniform(0, max(0.0, options.days * 86400 - length)))
        common = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session,
                  "version": options.version, "gitBranch": "main"}
        records, parent, before, context = [], None, [], rng.randint(8_000, 20_000)
        for _ in range(lines_per_session[number]):
            if rng.random() < options.user_ratio:
                identity = new_uuid(rng)
                records.append({"parentUuid": parent, **common, "type": "user",
                                "message": {"role": "user", "content": ""}, "uuid": identity, "timestamp": at})
                parent = identity
                at += timedelta(seconds=rng.uniform(1, 20))
            if before and rng.random() < options.dup_rate:
                message, request, name, usage = before[-1]
                repeats += 1
            else:
                name = model(rng)
                context = min(180_000, context + rng.randint(200, 4_000))
                if rng.random() < 0.03:
                    context = rng.randint(8_000, 20_000)  # the context was compacted
                written = rng.randint(0, 3_000) if rng.random() < 0.7 else 0
                usage = {"input_tokens": rng.randint(1, 40), "cache_creation_input_tokens": written,
                         "cache_read_input_tokens": context,
                         "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0},
                         "output_tokens": rng.randint(1, 1_500), "service_tier": "standard"}
                message, request = identifier(rng, "msg_01"), identifier(rng, "req_011C")
                before.append((message, request, name, usage))
                responses += 1
                price = PRICES[name]
                dollars = (usage["input_tokens"] * price[0] + usage["output_tokens"] * price[1]
                           + usage["cache_creation_input_tokens"] * price[2]
                           + usage["cache_read_input_tokens"] * price[3]) / 1e6
                cost += dollars
                sums = per_model.setdefault(name, dict.fromkeys(COUNTED, 0) | {"entries": 0, "cost_usd": 0.0})
                for field in COUNTED:
                    totals[field] += usage[field]
                    sums[field] += usage[field]
                sums["entries"] += 1
                sums["cost_usd"] += dollars
            identity = new_uuid(rng)
            records.append({"parentUuid": parent, **common,
                            "message": {"id": message, "type": "message", "role": "assistant", "model": name,
                                        "content": [{"type": "text", "text": prose(rng, 0)}],
                                        "stop_reason": None, "stop_sequence": None, "usage": usage},
                            "requestId": request, "type": "assistant", "uuid": identity, "timestamp": at})
            parent = identity
            at += timedelta(seconds=rng.uniform(2, 40))
            if rng.random() < 0.002:
                at += timedelta(hours=rng.uniform(1, 6))  # a pause
        if number in limited:
            records.append({"parentUuid": parent, **common, "type": "assistant", "isApiErrorMessage": True,
                            "uuid": new_uuid(rng), "timestamp": at,
                            "message": {"id": new_uuid(rng), "model": "<synthetic>", "role": "assistant",
                                        "stop_reason": "stop_sequence", "stop_sequence": "", "type": "message",
                                        "usage": {"input_tokens": 0, "output_tokens": 0,
                                                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                                                  "server_tool_use": {"web_search_requests": 0},
                                                  "service_tier": None},
                                        "content": [{"type": "text", "text": "Claude AI usage limit reached|RESET"}]}})
        # The whole session within the days before the end.
        shift = max(timedelta(0), records[-1]["timestamp"] - end)
        text = []
        for record in records:
            moment = record["timestamp"] - shift
            first = moment if first is None or moment < first else first
            last = moment if last is None or moment > last else last
            record["timestamp"] = stamp(moment)
            line = json.dumps(record, separators=(",", ":"))
            if record.get("isApiErrorMessage"):
                # The limit resets at the next whole hour after the one after the message.
                reset = (moment + timedelta(hours=2)).replace(minute=0, second=0, microsecond=0)
                line = line.replace("|RESET", f"|{int(reset.timestamp())}")
            text.append(line)
        text.append(json.dumps({"type": "summary", "summary": "A generated session", "leafUuid": parent},
                               separators=(",", ":")))
        data = "\n".join(text) + "\n"
        with open(os.path.join(projects_folder, cwd.replace("/", "-"), session + ".jsonl"), "w") as f:
            f.write(data)
        written_bytes += len(data.encode())
    manifest = {"generator": "make_claude_logs.py", "seed": options.seed, "sessions": options.sessions,
                "assistant_lines": options.assistant_lines, "duplicate_assistant_lines": repeats,
                "unique_usage_entries": responses, "limit_messages": len(limited),
                "first_timestamp": stamp(first), "last_timestamp": stamp(last), "bytes": written_bytes,
                "totals_after_dedupe": totals, "total_tokens_after_dedupe": sum(totals.values()),
                "expected_cost_usd": round(cost, 6), "per_model": per_model, "prices_per_million": PRICES}
    with open(os.path.join(options.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    print(json.dumps({key: manifest[key] for key in ("sessions", "assistant_lines", "unique_usage_entries", "bytes",
                                                      "total_tokens_after_dedupe", "expected_cost_usd")}))


if __name__ == "__main__":
    main()
