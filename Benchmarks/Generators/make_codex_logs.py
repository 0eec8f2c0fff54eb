#!/usr/bin/env python3
"""Writes a Codex home of generated session logs for the collector benchmark, with the figures a reader
must find.

    make_codex_logs.py --out DIR [--sessions 100] [--events 200] [--days 7] [--end 2026-11-30T12:00:00Z]
                       [--seed 1] [--pad-bytes 600] [--legacy-share 0.1]

DIR/sessions/YYYY/MM/DD/rollout-<start>-<uuid>.jsonl: a session_meta and a turn_context line, then per
response an assistant message padded to about --pad-bytes (the bulk a reader must skip) and a
token_count event with the session's totals, the response's own usage and the rate limits. A share of
the sessions (--legacy-share) write the older rate-limit shapes (seconds until the reset; flat
percentages); one event in twenty has no rate limits and one in fifty no usage, as real logs have.
DIR/auth.json is a ChatGPT login whose id_token carries the e-mail and plan. DIR/manifest.json holds
what a reader must report: the newest rate limits and, per UTC day, the sum of the responses' usage
(an event without usage adds nothing: its tokens are in the next event's totals only).
The same seed writes the same bytes.
"""
import argparse
import base64
import json
import os
import random
import uuid
from datetime import datetime, timedelta, timezone

MODELS = ["gpt-5.1-codex", "gpt-5.1-codex-mini", "gpt-5-codex"]
FIELDS = ["input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"]


def stamp(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def unpadded_base64(value):
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def write_login(out, rng, end, email, plan):
    account = str(uuid.UUID(int=rng.getrandbits(128)))
    claims = {"email": email, "https://api.openai.com/auth": {"chatgpt_plan_type": plan, "chatgpt_account_id": account}}
    token = unpadded_base64({"alg": "RS256", "typ": "JWT"}) + "." + unpadded_base64(claims) + ".c2lnbmF0dXJl"
    with open(os.path.join(out, "auth.json"), "w") as f:
        json.dump({"auth_mode": "chatgpt", "OPENAI_API_KEY": None, "last_refresh": stamp(end),
                   "tokens": {"id_token": token, "access_token": "redacted-access",
                              "refresh_token": "redacted-refresh", "account_id": account}}, f)


def rate_limits(shape, at, session_used, week_used, session_reset, week_reset, plan):
    """The rate limits of one event in `shape`, and what a reader makes of them."""
    second = int(at.timestamp())
    if shape == "flat":
        written = {"primary_used_percent": session_used, "secondary_used_percent": week_used,
                   "primary_to_secondary_ratio_percent": 5.0, "primary_window_minutes": 300,
                   "secondary_window_minutes": 10080}
        return written, (None, None, None)
    if shape == "seconds":
        written = {"primary": {"used_percent": session_used, "window_minutes": 300,
                               "resets_in_seconds": session_reset - second},
                   "secondary": {"used_percent": week_used, "window_minutes": 10080,
                                 "resets_in_seconds": week_reset - second}}
        return written, (session_reset, week_reset, None)
    written = {"limit_id": "codex", "limit_name": None,
               "primary": {"used_percent": session_used, "window_minutes": 300, "resets_at": session_reset},
               "secondary": {"used_percent": week_used, "window_minutes": 10080, "resets_at": week_reset},
               "credits": {"has_credits": False, "unlimited": False, "balance": None}, "plan_type": plan}
    return written, (session_reset, week_reset, plan)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--events", type=int, default=200, help="responses per session, on average")
    parser.add_argument("--days", type=float, default=7)
    parser.add_argument("--end", default="2026-11-30T12:00:00Z")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pad-bytes", type=int, default=600)
    parser.add_argument("--legacy-share", type=float, default=0.1)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    end = datetime.strptime(options.end, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    email, plan = f"dev{rng.randrange(1000):03d}@example.com", rng.choice(["plus", "pro", "team"])
    os.makedirs(options.out, exist_ok=True)
    write_login(options.out, rng, end, email, plan)
    per_day, totals = {}, dict.fromkeys(FIELDS, 0)
    newest = None
    written_bytes = files = 0
    for session_number in range(options.sessions):
        began = end - timedelta(days=rng.uniform(0, options.days))
        session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        legacy = rng.random() < options.legacy_share
        shape = ("flat" if session_number % 2 else "seconds") if legacy else "current"
        folder = os.path.join(options.out, "sessions", began.strftime("%Y"), began.strftime("%m"), began.strftime("%d"))
        os.makedirs(folder, exist_ok=True)
        lines = [
            {"timestamp": stamp(began), "type": "session_meta",
             "payload": {"id": session, "timestamp": stamp(began), "cwd": f"/home/dev/work/p{session_number % 9}",
                         "originator": "codex_cli_rs", "cli_version": "0.63.0", "instructions": None,
                         "source": "cli", "model_provider": "openai"}},
            {"timestamp": stamp(began), "type": "turn_context",
             "payload": {"cwd": "/home/dev/work", "approval_policy": "on-request",
                         "sandbox_policy": {"type": "workspace-write"}, "model": rng.choice(MODELS),
                         "effort": "medium", "summary": "auto"}},
        ]
        session_totals = dict.fromkeys(FIELDS, 0)
        session_used, week_used = rng.uniform(0, 60), rng.uniform(0, 80)
        at = began
        for _ in range(max(1, int(rng.gauss(options.events, options.events / 4)))):
            at += timedelta(seconds=rng.uniform(3, 60))
            if at > end:
                break
            padding = "x" * int(rng.expovariate(1 / options.pad_bytes))
            lines.append({"timestamp": stamp(at), "type": "response_item",
                          "payload": {"type": "message", "role": "assistant",
                                      "content": [{"type": "output_text", "text": padding}]}})
            given = rng.randint(2000, 60000)
            produced = rng.randint(10, 3000)
            usage = {"input_tokens": given, "cached_input_tokens": rng.randint(0, given),
                     "output_tokens": produced, "reasoning_output_tokens": rng.randint(0, produced),
                     "total_tokens": given + produced}
            session_used = min(100.0, session_used + rng.uniform(0, 0.8))
            week_used = min(100.0, week_used + rng.uniform(0, 0.1))
            session_reset = int((at + timedelta(minutes=rng.uniform(1, 300))).timestamp())
            week_reset = int((at + timedelta(days=rng.uniform(0, 7))).timestamp())
            limits = None
            if rng.random() >= 0.05:
                limits, (found_session_reset, found_week_reset, found_plan) = rate_limits(
                    shape, at, round(session_used, 1), round(week_used, 1), session_reset, week_reset, plan)
            has_usage = rng.random() >= 0.02
            if has_usage:
                for field in FIELDS:
                    session_totals[field] += usage[field]
            info = {"total_token_usage": dict(session_totals), "last_token_usage": usage,
                    "model_context_window": 272000} if has_usage else None
            lines.append({"timestamp": stamp(at), "type": "event_msg",
                          "payload": {"type": "token_count", "info": info, "rate_limits": limits}})
            if has_usage:
                day = per_day.setdefault(at.strftime("%Y-%m-%d"), dict.fromkeys(FIELDS, 0))
                for field in FIELDS:
                    day[field] += usage[field]
                    totals[field] += usage[field]
            if limits is not None and (newest is None or at > newest[0]):
                newest = (at, {"primary": {"used_percent": round(session_used, 1), "window_minutes": 300,
                                           "resets_at": found_session_reset},
                               "secondary": {"used_percent": round(week_used, 1), "window_minutes": 10080,
                                             "resets_at": found_week_reset},
                               "plan_type": found_plan, "at": stamp(at)})
        text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
        name = f"rollout-{began.strftime('%Y-%m-%dT%H-%M-%S')}-{session}.jsonl"
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
        written_bytes += len(text)
        files += 1
    manifest = {"generator": "make_codex_logs.py", "seed": options.seed, "files": files, "bytes": written_bytes,
                "account_email": email, "plan_type": plan,
                "latest_rate_limits": newest[1] if newest else None, "per_day": per_day, "totals": totals}
    with open(os.path.join(options.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(json.dumps({"files": files, "bytes": written_bytes, "total_tokens": totals["total_tokens"]}))


if __name__ == "__main__":
    main()
