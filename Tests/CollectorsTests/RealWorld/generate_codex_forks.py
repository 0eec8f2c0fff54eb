import json, os
root = "Tests/CollectorsTests/RealWorld/codex"
UUID = {"P": "019a0000-0000-7000-8000-00000000000p", "A": "019a0000-0000-7000-8000-00000000000a",
        "B": "019a0000-0000-7000-8000-00000000000b", "S": "019a0000-0000-7000-8000-00000000000s",
        "M": "019a0000-0000-7000-8000-00000000000m", "X": "019a0000-0000-7000-8000-00000000000x",
        "Y": "019a0000-0000-7000-8000-00000000000y"}

def meta(id, ts, **extra):
    payload = {"id": id, "timestamp": ts, "cwd": "/home/dev/work", "originator": "codex_cli_rs",
               "cli_version": "0.160.0", "source": "cli", "model_provider": "openai",
               "base_instructions": {"text": "You are Codex."}}
    payload.update(extra)
    return {"timestamp": ts, "type": "session_meta", "payload": payload}

def count(ts, last, total):
    return {"timestamp": ts, "type": "event_msg", "payload": {"type": "token_count", "info": {
        "total_token_usage": {"input_tokens": total - 1, "cached_input_tokens": 0, "output_tokens": 1, "reasoning_output_tokens": 0, "total_tokens": total},
        "last_token_usage": {"input_tokens": last - 1, "cached_input_tokens": 0, "output_tokens": 1, "reasoning_output_tokens": 0, "total_tokens": last},
        "model_context_window": 258400},
        "rate_limits": {"primary": {"used_percent": 12.0, "window_minutes": 300, "resets_at": 1796050000},
                        "secondary": {"used_percent": 30.0, "window_minutes": 10080, "resets_at": 1796500000}}}}

def user(ts, text):
    return {"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": text}}

def write(case, rel, lines, expected):
    path = os.path.join(root, case, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for line in lines: f.write(json.dumps(line, separators=(",", ":")) + "\n")
    with open(os.path.join(root, case, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1); f.write("\n")

def parent_lines(id, start="2026-11-30T08"):
    # Three responses: 100, 150, 50 (cumulative 100, 250, 300).
    return [meta(id, f"{start}:00:00.000Z"), user(f"{start}:00:05.000Z", "hello"),
            count(f"{start}:00:10.000Z", 100, 100), count(f"{start}:01:10.000Z", 150, 250),
            count(f"{start}:02:10.000Z", 50, 300)]

def replay(lines, at):
    # Codex re-writes every replayed line with the time of the replay.
    return [dict(line, timestamp=at) for line in lines]

SOURCE_FORK = ("openai/codex codex-rs/core/src/rollout/recorder.rs (a fork's or sub-agent's rollout replays the "
               "parent's history, every line written with the current time); CodexBar Tests/CodexBarTests/Fixtures/"
               "CostUsage/Issue2037 (the parent owns the copied prefix, the child counts what follows)")

# 1. A fork whose replay is dated at the fork (10:00), with the parent present.
p = parent_lines(UUID["P"])
write("fork-replayed-at-fork-time", f"sessions/2026/11/30/rollout-2026-11-30T08-00-00-{UUID['P']}.jsonl", p, {})
child = [meta(UUID["A"], "2026-11-30T10:00:00.000Z", forked_from_id=UUID["P"])] + replay(p, "2026-11-30T10:00:00.100Z") + [
    user("2026-11-30T10:01:00.000Z", "now the fork's own work"),
    count("2026-11-30T10:01:30.000Z", 20, 320), count("2026-11-30T10:02:30.000Z", 30, 350)]
write("fork-replayed-at-fork-time", f"sessions/2026/11/30/rollout-2026-11-30T10-00-00-{UUID['A']}.jsonl", child, {
    "what": "a fork replays its parent's three responses (300 tokens) re-dated at the fork, then adds two of its own (50): the parent's 300 count once, in the parent",
    "tokens": 350, "source": SOURCE_FORK})

# 2. The parent archived, the fork active.
write("fork-of-archived-parent", f"archived_sessions/2026/11/30/rollout-2026-11-30T08-00-00-{UUID['P']}.jsonl", p, {})
write("fork-of-archived-parent", f"sessions/2026/11/30/rollout-2026-11-30T10-00-00-{UUID['A']}.jsonl", child, {
    "what": "the parent of a fork archived (archived_sessions/), the fork active: the replayed prefix still counts once",
    "tokens": 350, "source": SOURCE_FORK + "; CodexBar Issue2037 'archived fork'"})

# 3. Two forks of a parent that is gone: the shared prefix counts once.
a = [meta(UUID["A"], "2026-11-30T10:00:00.000Z", forked_from_id=UUID["M"])] + replay(p[1:], "2026-11-30T10:00:00.100Z") + [
    count("2026-11-30T10:01:30.000Z", 20, 320)]
b = [meta(UUID["B"], "2026-11-30T11:00:00.000Z", forked_from_id=UUID["M"])] + replay(p[1:], "2026-11-30T11:00:00.100Z") + [
    count("2026-11-30T11:01:30.000Z", 7, 307)]
write("missing-parent-siblings", f"sessions/2026/11/30/rollout-2026-11-30T10-00-00-{UUID['A']}.jsonl", a, {})
write("missing-parent-siblings", f"sessions/2026/11/30/rollout-2026-11-30T11-00-00-{UUID['B']}.jsonl", b, {
    "what": "two forks of a session whose file is gone share its three replayed responses (300): counted once, in the fork that began first, plus each fork's own (20 and 7)",
    "tokens": 327, "source": "CodexBar Tests/CodexBarTests/Fixtures/CostUsage/Issue2037/missing-parent-siblings/ORACLE.md (prefix once, owned by the earliest fork)"})

# 4. A sub-agent spawned by its parent thread (thread_spawn), the parent present.
s = [meta(UUID["S"], "2026-11-30T09:00:00.000Z", source={"subagent": {"thread_spawn": {"parent_thread_id": UUID["P"], "depth": 1, "agent_nickname": "Dalton", "agent_role": "explorer"}}})] + \
    replay(p[1:], "2026-11-30T09:00:00.200Z") + [count("2026-11-30T09:00:40.000Z", 11, 311)]
write("thread-spawn-subagent", f"sessions/2026/11/30/rollout-2026-11-30T08-00-00-{UUID['P']}.jsonl", p, {})
write("thread-spawn-subagent", f"sessions/2026/11/30/rollout-2026-11-30T09-00-00-{UUID['S']}.jsonl", s, {
    "what": "a sub-agent (session_meta.source.subagent.thread_spawn.parent_thread_id) replays its parent's history before its own work: parent 300 plus its own 11",
    "tokens": 311, "source": "openai/codex SubAgentSource::ThreadSpawn {parent_thread_id, depth}; ccusage rust/crates/ccusage/src/adapter/codex/parser.rs (a thread_spawn rollout's replay is skipped)"})

# 5. One usage line copied into two unrelated files.
x = [meta(UUID["X"], "2026-11-30T07:00:00.000Z"), count("2026-11-30T07:00:10.000Z", 40, 40), count("2026-11-30T07:01:10.000Z", 60, 100)]
y = [meta(UUID["Y"], "2026-11-30T07:30:00.000Z"), count("2026-11-30T07:01:10.000Z", 60, 100), count("2026-11-30T07:31:10.000Z", 5, 105)]
write("usage-line-copied-into-two-files", f"sessions/2026/11/30/rollout-2026-11-30T07-00-00-{UUID['X']}.jsonl", x, {})
write("usage-line-copied-into-two-files", f"sessions/2026/11/30/rollout-2026-11-30T07-30-00-{UUID['Y']}.jsonl", y, {
    "what": "the same token_count line (same time, same figures) in two session files counts once: 40 + 60 + 5",
    "tokens": 105, "source": "ccusage rust/crates/ccusage/src/adapter/codex/loader.rs (dedupe_codex_events: timestamp, model and token figures; test dedupes_matching_codex_usage_events_from_distinct_sessions)"})
