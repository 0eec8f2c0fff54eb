import json, os
root = "Tests/CollectorsTests/RealWorld/claude"
SESSION = "3f1c0000-0000-4000-8000-000000000001"

def assistant(ts, mid, rid, inp, out, sidechain=False, agent=None):
    line = {"parentUuid": None, "isSidechain": sidechain, "userType": "external", "cwd": "/home/dev/work",
            "sessionId": SESSION, "version": "2.1.90", "type": "assistant", "timestamp": ts, "requestId": rid,
            "uuid": f"u-{mid}-{rid}", "message": {"id": mid, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-6", "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": inp, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": out}}}
    if agent: line["agentId"] = agent
    return line

def progress(ts, agent, nested):
    return {"parentUuid": "p-1", "isSidechain": False, "type": "progress", "timestamp": ts, "sessionId": SESSION,
            "toolUseID": "agent_msg_1", "parentToolUseID": "toolu_1", "uuid": f"prog-{ts}",
            "data": {"type": "agent_progress", "agentId": agent, "prompt": "look around", "message": nested}}

def write(case, rel, lines, expected=None):
    path = os.path.join(root, case, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for line in lines: f.write(json.dumps(line, separators=(",", ":")) + "\n")
    if expected:
        with open(os.path.join(root, case, "expected.json"), "w") as f:
            json.dump(expected, f, indent=1); f.write("\n")

SOURCE = ("Claude Code writes a sub-agent's messages into the parent's log as progress lines "
          "(type progress, data.type agent_progress, data.message an assistant entry); ccusage "
          "rust/crates/ccusage/src/adapter/claude/daily.rs and mod.rs (agent_progress usage; a message id counts once)")
main = [assistant("2026-11-30T09:00:00.000Z", "msg_main1", "req_main1", 100, 20),
        progress("2026-11-30T09:00:05.000Z", "a1", assistant("2026-11-30T09:00:04.000Z", "msg_sub1", "req_sub1", 300, 40, True, "a1")),
        progress("2026-11-30T09:00:09.000Z", "a1", assistant("2026-11-30T09:00:08.000Z", "msg_sub2", "req_sub2", 50, 5, True, "a1")),
        assistant("2026-11-30T09:01:00.000Z", "msg_main2", "req_main2", 10, 2)]
write("agent-progress-usage", f"projects/-home-dev-work/{SESSION}.jsonl", main, {
    "what": "a sub-agent's usage reported only on its parent's agent_progress lines counts (340 + 55) beside the parent's own (120 + 12)",
    "tokens": 527, "source": SOURCE})
write("agent-progress-with-subagent-file", f"projects/-home-dev-work/{SESSION}.jsonl", main)
write("agent-progress-with-subagent-file", f"projects/-home-dev-work/{SESSION}/subagents/agent-a1.jsonl", [
    assistant("2026-11-30T09:00:04.000Z", "msg_sub1", "req_sub1", 300, 45, True, "a1"),
    assistant("2026-11-30T09:00:08.000Z", "msg_sub2", "req_sub2", 50, 5, True, "a1")], {
    "what": "the same sub-agent messages also in the sub-agent's own file (subagents/agent-a1.jsonl): each counts once, as the sub-agent's file has it (345 + 55), beside the parent's 132",
    "tokens": 532, "source": SOURCE + "; Claude Code stores sub-agent transcripts at <session>/subagents/agent-<id>.jsonl"})
