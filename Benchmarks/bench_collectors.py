#!/usr/bin/env python3
"""Benchmark of `aggctl publish --source codex|claude|gemini` on generated agent-log corpora.

    bench_collectors.py AGGCTL_BINARY [--runs 5] [--work DIR] [--before BINARY]
                        [--codex-sessions 2000] [--claude-lines 200000] [--gemini-sessions 500]

With --before, the same Codex and Claude runs of another binary (an earlier build) are measured
interleaved beside this one's. The Gemini CLI corpus (session-*.json documents and session-*.jsonl
logs) is generated here, deterministically, with its expected total.

Generates the corpora with Generators/make_codex_logs.py and make_claude_logs.py (kept in --work),
installs claude-monitor (PyPI) into a virtual environment in --work when missing, checks that aggctl's
totals agree with each corpus's manifest and with claude-monitor, then measures, interleaved: Codex cold
(empty state directory), Codex with nothing new (the incremental state of an earlier run), Claude cold and with
nothing new, and claude-monitor loading the same Claude corpus. Medians of --runs runs; peak RSS from GNU time.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_store import run, peak_rss  # noqa: E402


def corpus_megabytes(folder):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(folder) for f in files
               if f.endswith(".jsonl")) / 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-collectors"))
    parser.add_argument("--codex-sessions", type=int, default=2000)
    parser.add_argument("--claude-lines", type=int, default=200000)
    parser.add_argument("--gemini-sessions", type=int, default=500)
    parser.add_argument("--before", help="an earlier aggctl binary to measure beside this one")
    args = parser.parse_args()
    tools = os.path.join(HERE, "Generators")
    os.makedirs(args.work, exist_ok=True)

    codex = os.path.join(args.work, f"codex-{args.codex_sessions}")
    if not os.path.exists(os.path.join(codex, "manifest.json")):
        shutil.rmtree(codex, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(tools, "make_codex_logs.py"), "--out", codex,
                        "--sessions", str(args.codex_sessions)], check=True, stdout=subprocess.DEVNULL)
    claude = os.path.join(args.work, f"claude-{args.claude_lines}")
    if not os.path.exists(os.path.join(claude, "manifest.json")):
        shutil.rmtree(claude, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(tools, "make_claude_logs.py"), "--out", claude,
                        "--assistant-lines", str(args.claude_lines)], check=True, stdout=subprocess.DEVNULL)
    gemini = os.path.join(args.work, f"gemini-{args.gemini_sessions}")
    gemini_total = make_gemini_corpus(gemini, args.gemini_sessions)
    venv = os.path.join(args.work, "claude-monitor")
    monitor_python = os.path.join(venv, "bin", "python")
    if not os.path.exists(monitor_python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([monitor_python, "-m", "pip", "install", "-q", "claude-monitor"], check=True)

    state = os.path.join(args.work, "state")
    warm_state = os.path.join(args.work, "state-warm")
    codex_cmd = [args.aggctl, "publish", "--store", os.path.join(args.work, "store"), "--device-id", "bench",
                 "--dry-run", "--source", "codex:" + codex]
    claude_cmd = [args.aggctl, "publish", "--store", os.path.join(args.work, "store"), "--device-id", "bench",
                  "--dry-run", "--source", "claude:" + claude]
    gemini_cmd = [args.aggctl, "publish", "--store", os.path.join(args.work, "store"), "--device-id", "bench",
                  "--dry-run", "--now", "2026-11-30T12:00:00Z", "--source", "gemini:" + gemini]
    monitor_script = ("from claude_monitor.data.reader import load_usage_entries\n"
                      f"e, _ = load_usage_entries(data_path={os.path.join(claude, 'projects')!r}, hours_back=None,"
                      " include_raw=False)\n"
                      "import json; print(json.dumps([len(e), sum(x.input_tokens + x.output_tokens + "
                      "x.cache_creation_tokens + x.cache_read_tokens for x in e), sum(x.cost_usd for x in e)]))")
    monitor_cmd = [monitor_python, "-c", monitor_script]

    # Agreement first.
    def aggctl_json(command, state_dir):
        env = dict(os.environ, XDG_STATE_HOME=state_dir)
        return json.loads(subprocess.run(command, env=env, check=True, capture_output=True).stdout)["providers"][0]
    shutil.rmtree(state, ignore_errors=True)
    codex_entry = aggctl_json(codex_cmd, state)
    manifest = json.load(open(os.path.join(codex, "manifest.json")))
    latest = manifest["latest_rate_limits"]
    daily = {d["date"]: d["tokens"] for d in codex_entry["tokens"]["daily"]}
    expected = {day: sums["total_tokens"] for day, sums in manifest["per_day"].items() if day in daily}
    if (codex_entry["session"]["usedPercent"] != latest["primary"]["used_percent"]
            or codex_entry["weekly"]["usedPercent"] != latest["secondary"]["used_percent"] or daily != expected):
        raise SystemExit("bench: aggctl's Codex figures disagree with the corpus manifest")
    claude_entry = aggctl_json(claude_cmd, state)
    claude_manifest = json.load(open(os.path.join(claude, "manifest.json")))
    tokens = sum(d["tokens"] for d in claude_entry["tokens"]["daily"])
    cost = sum(d.get("costUSD", 0) for d in claude_entry["tokens"]["daily"])
    monitor = json.loads(subprocess.run(monitor_cmd, check=True, capture_output=True).stdout)
    if tokens != claude_manifest["total_tokens_after_dedupe"] or tokens != monitor[1]:
        raise SystemExit(f"bench: Claude totals disagree: aggctl {tokens}, manifest "
                         f"{claude_manifest['total_tokens_after_dedupe']}, claude-monitor {monitor[1]}")
    gemini_entry = aggctl_json(gemini_cmd, state)
    if gemini_entry["tokens"]["last30Days"] != gemini_total:
        raise SystemExit(f"bench: aggctl's Gemini total {gemini_entry['tokens']['last30Days']} is not {gemini_total}")
    print(f"agreement: Gemini {gemini_total} tokens as generated")
    print(f"agreement: Codex windows and per-day tokens as the manifest; Claude {tokens} tokens "
          f"(manifest and claude-monitor alike), cost ${cost:.4f} (manifest ${claude_manifest['expected_cost_usd']:.4f},"
          f" claude-monitor ${monitor[2]:.4f})")

    # Measured as cron runs it: a real publish into a scratch store. `--dry-run` writes nothing, not even
    # the collectors' incremental state, so "nothing new" would be a cold read every time.
    codex_cmd, claude_cmd, gemini_cmd = ([c for c in command if c != "--dry-run"]
                                         for command in (codex_cmd, claude_cmd, gemini_cmd))
    shutil.rmtree(warm_state, ignore_errors=True)
    warm_env = dict(os.environ, XDG_STATE_HOME=warm_state)
    subprocess.run(codex_cmd, env=warm_env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(claude_cmd, env=warm_env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(gemini_cmd, env=warm_env, check=True, stdout=subprocess.DEVNULL)
    before_warm = os.path.join(args.work, "state-before-warm")
    before = {}
    if args.before:
        shutil.rmtree(before_warm, ignore_errors=True)
        before = {name: [args.before] + command[1:] for name, command in
                  (("codex", codex_cmd), ("claude", claude_cmd))}
        for command in before.values():
            subprocess.run(command, env=dict(os.environ, XDG_STATE_HOME=before_warm), check=True,
                           stdout=subprocess.DEVNULL)
    samples = {"codex cold": [], "codex nothing new": [], "codex one log grew": [], "claude cold": [],
               "claude nothing new": [], "claude one log grew": [], "gemini cold": [], "gemini nothing new": [],
               "claude-monitor load": []}
    for name in before:
        samples[f"{name} cold (before)"] = []
        samples[f"{name} nothing new (before)"] = []
        samples[f"{name} one log grew (before)"] = []
    # While an agent works, each run finds one of its logs longer: the file is read from where the last
    # run stopped, and the kept state of every file is loaded and saved. The line appended repeats the
    # file's last one (the same response again, counted once), so the corpus keeps its totals.
    growing = {"codex": middle_log(codex, ".jsonl"), "claude": middle_log(claude, ".jsonl")}
    for _ in range(args.runs):
        shutil.rmtree(state, ignore_errors=True)
        samples["codex cold"].append(run(codex_cmd, dict(os.environ, XDG_STATE_HOME=state)))
        samples["codex nothing new"].append(run(codex_cmd, warm_env))
        samples["claude cold"].append(run(claude_cmd, dict(os.environ, XDG_STATE_HOME=state)))
        samples["claude nothing new"].append(run(claude_cmd, warm_env))
        samples["gemini cold"].append(run(gemini_cmd, dict(os.environ, XDG_STATE_HOME=state)))
        samples["gemini nothing new"].append(run(gemini_cmd, warm_env))
        for name, command in before.items():
            shutil.rmtree(state, ignore_errors=True)
            samples[f"{name} cold (before)"].append(run(command, dict(os.environ, XDG_STATE_HOME=state)))
            samples[f"{name} nothing new (before)"].append(
                run(command, dict(os.environ, XDG_STATE_HOME=before_warm)))
        samples["claude-monitor load"].append(run(monitor_cmd))
    # After every nothing-new run: a log changed moments ago keeps the next run from its memo.
    for _ in range(args.runs):
        for name, command in (("codex", codex_cmd), ("claude", claude_cmd)):
            grow(growing[name])
            samples[f"{name} one log grew"].append(run(command, warm_env))
            if name in before:
                grow(growing[name])
                samples[f"{name} one log grew (before)"].append(
                    run(before[name], dict(os.environ, XDG_STATE_HOME=before_warm)))
    shutil.rmtree(state, ignore_errors=True)
    memory = {"codex cold": peak_rss(codex_cmd, dict(os.environ, XDG_STATE_HOME=state)),
              "codex nothing new": peak_rss(codex_cmd, warm_env),
              "claude cold": peak_rss(claude_cmd, dict(os.environ, XDG_STATE_HOME=state)),
              "claude nothing new": peak_rss(claude_cmd, warm_env),
              "gemini cold": peak_rss(gemini_cmd, dict(os.environ, XDG_STATE_HOME=state)),
              "gemini nothing new": peak_rss(gemini_cmd, warm_env),
              "claude-monitor load": peak_rss(monitor_cmd)}
    memory["codex one log grew"] = memory["claude one log grew"] = 0
    sizes = {"codex cold": corpus_megabytes(codex), "codex nothing new": corpus_megabytes(codex),
             "codex one log grew": corpus_megabytes(codex), "claude one log grew": corpus_megabytes(claude),
             "claude cold": corpus_megabytes(claude), "claude nothing new": corpus_megabytes(claude),
             "gemini cold": corpus_megabytes(gemini), "gemini nothing new": corpus_megabytes(gemini),
             "claude-monitor load": corpus_megabytes(claude)}
    for name in list(samples):
        if name.endswith("(before)"):
            sizes[name] = sizes[name.replace(" (before)", "")]
            memory[name] = 0
    print()
    print(f"{'what':<29} {'MB':>7} {'ms':>9} {'MB/s':>8} {'peak RSS':>9}")
    for name, times in samples.items():
        seconds = statistics.median(times)
        rss = f"{memory[name] / 1024:>7.0f}MB" if memory[name] else "        -"
        print(f"{name:<29} {sizes[name]:>7.0f} {seconds * 1e3:>9.1f} {sizes[name] / seconds:>8.0f} {rss}")
    speedup = statistics.median(samples["claude-monitor load"]) / statistics.median(samples["claude cold"])
    print(f"\nClaude: aggctl is {speedup:.1f}x faster than claude-monitor's load of the same logs")


def middle_log(folder, suffix):
    """The log in the middle of `folder`'s logs, by path: the one a benchmark makes grow."""
    logs = sorted(os.path.join(root, name) for root, _, names in os.walk(folder) for name in names
                  if name.endswith(suffix))
    return logs[len(logs) // 2]


def grow(log):
    """Appends `log`'s last line to it again."""
    with open(log) as f:
        last = f.read().splitlines()[-1]
    with open(log, "a") as f:
        f.write(last + "\n")


def make_gemini_corpus(folder, sessions):
    """Gemini CLI sessions: two thirds session-*.json documents, a third session-*.jsonl logs, 40 messages
    each (half Gemini's, with tokens), deterministic. Returns the total tokens of the last 30 days."""
    import random
    marker = os.path.join(folder, "expected-total")
    if os.path.exists(marker):
        return int(open(marker).read())
    shutil.rmtree(folder, ignore_errors=True)
    rng = random.Random(3)
    total = 0
    for s in range(sessions):
        chats = os.path.join(folder, "tmp", "%08x" % rng.getrandbits(32), "chats")
        os.makedirs(chats, exist_ok=True)
        day = 3 + s % 27
        messages = []
        for m in range(40):
            at = "2026-11-%02dT%02d:%02d:%02d.000Z" % (day, 8 + m // 4, (m * 7) % 60, m % 60)
            if m % 2 == 0:
                messages.append({"id": f"s{s}-m{m}", "timestamp": at, "type": "user", "content": "x" * rng.randint(20, 400)})
                continue
            inp, out, thoughts = rng.randint(1000, 40000), rng.randint(50, 3000), rng.randint(0, 800)
            tokens = {"input": inp, "output": out, "cached": rng.randint(0, inp), "thoughts": thoughts, "tool": 0,
                      "total": inp + out + thoughts}
            total += tokens["total"]
            messages.append({"id": f"s{s}-m{m}", "timestamp": at, "type": "gemini", "content": "y" * rng.randint(50, 2000),
                             "tokens": tokens, "model": "gemini-2.5-pro"})
        name = "session-2026-11-%02dT08-00-%08x" % (day, rng.getrandbits(32))
        if s % 3 == 2:
            with open(os.path.join(chats, name + ".jsonl"), "w") as out:
                for message in messages:
                    out.write(json.dumps(message) + "\n")
        else:
            with open(os.path.join(chats, name + ".json"), "w") as out:
                json.dump({"sessionId": name, "projectHash": "p", "startTime": messages[0]["timestamp"],
                           "lastUpdated": messages[-1]["timestamp"], "messages": messages}, out, indent=2)
    with open(marker, "w") as out:
        out.write(str(total))
    return total


if __name__ == "__main__":
    main()
