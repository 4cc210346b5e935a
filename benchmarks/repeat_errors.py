"""Repeat-error benchmark: does a create_agent agent stop repeating a tool mistake after one failure?

A scripted ``langchain.agents.create_agent`` agent meets 20 distinct tool pitfalls once each. Every
pitfall is a tool that fails unless one argument has a certain value; the failure message names
the right way (``deploy_service requires ticket=CHG-1042``). A third of the tools raise (the run
crashes), a third fail with an error ``ToolMessage``, a third return error-shaped text with no error
flag: no run is labelled by hand, the middleware infers every outcome. The scripted model plans the
tool call for a task and follows a recalled lesson only if one is in the system prompt it receives
(it reads ``<tool> requires <arg>=<value>`` hints there; it knows nothing else).

Then each pitfall's task comes back paraphrased, and 20 unrelated tasks are asked. Reported:

- repeat-error rate: paraphrased retries whose tool call failed again, with and without
  ``HindsightMiddleware`` (target 0 with memory after one failure);
- unrelated-lesson rate: unrelated tasks whose first model call received any lesson or episode
  with an outcome (target at most 10%).

The pitfall set is a dev set written for this benchmark (tool names, tasks and paraphrases below).

Run: ``python -m benchmarks.repeat_errors [--hash] [--out PATH]`` (``--hash``: the small
deterministic embedder instead of all-MiniLM-L6-v2, for a quick smoke run). With ``--data
benchmarks/data/lesson_transfer_<set>.json`` it runs an independent pitfall set end to end instead
(:func:`run_set`): with the middleware's second look (its precise plan context, then the bank's
own matching in the plan's context, ``lesson_match="bank"``) and without it.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from dataclasses import dataclass
from typing import Any

#: (tool, argument, required value, why, task, paraphrased task)
PITFALLS: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("deploy_service", "ticket", "CHG-1042", "prod deploys need a change ticket",
     "Deploy the billing service to production", "Please ship the billing service to prod"),
    ("send_invoice", "currency", "EUR", "this customer is billed in euros",
     "Send the March invoice to Acme Corp", "Email Acme Corp their invoice for March"),
    ("query_database", "replica", "read-2", "analysts may not query the primary",
     "Count last week's signups in the users database", "How many users signed up last week? Check the database"),
    ("restart_worker", "drain", "true", "workers must be drained before a restart",
     "Restart the queue worker q1", "Bounce the q1 queue worker"),
    ("book_room", "timezone", "Europe/Berlin", "rooms are booked in office time",
     "Book the large meeting room for Tuesday at 10", "Reserve the big conference room Tuesday 10am"),
    ("create_account", "role", "viewer", "new accounts start with least privilege",
     "Create an account for the new contractor Sam", "Set up a login for Sam, our new contractor"),
    ("upload_report", "format", "pdf", "the portal only accepts PDF",
     "Upload the quarterly report to the investor portal", "Put the Q3 report on the investor portal"),
    ("rotate_keys", "region", "eu-west-1", "keys live in the EU region",
     "Rotate the API signing keys", "Renew our API signing keys"),
    ("scale_cluster", "max_nodes", "12", "the budget caps the cluster at 12 nodes",
     "Scale the analytics cluster up for the batch job", "Give the analytics cluster more nodes for tonight's batch"),
    ("send_newsletter", "segment", "opted-in", "only opted-in subscribers may be emailed",
     "Send the product newsletter to our customers", "Mail out this month's product newsletter"),
    ("run_migration", "dry_run", "true", "migrations run as a dry run first",
     "Run the schema migration on the orders database", "Apply the new orders schema migration"),
    ("archive_logs", "retention_days", "90", "compliance requires 90 days",
     "Archive the web server logs", "Move the old web server logs to the archive"),
    ("publish_post", "visibility", "internal", "drafts are published internally first",
     "Publish the blog post about the outage", "Post the outage write-up on the blog"),
    ("refund_order", "reason_code", "RC-7", "refunds need a reason code",
     "Refund order 5531 for the customer", "Give the customer their money back for order 5531"),
    ("translate_document", "glossary", "legal-v2", "contracts use the legal glossary",
     "Translate the supplier contract into German", "Get the supplier contract translated to German"),
    ("schedule_backup", "window", "02:00", "backups run in the night window",
     "Schedule a full backup of the file server", "Set up a complete file server backup"),
    ("merge_branch", "strategy", "squash", "the main branch only takes squash merges",
     "Merge the feature branch into main", "Land the feature branch on main"),
    ("call_partner_api", "api_version", "2024-06", "older API versions were retired",
     "Fetch the shipment status from the partner API", "Ask the partner API where the shipment is"),
    ("export_customers", "pii", "redacted", "exports may not contain personal data",
     "Export the customer list for the marketing team", "Give marketing a dump of our customer list"),
    ("order_supplies", "vendor_id", "V-330", "only the approved vendor may be used",
     "Order printer paper for the office", "Buy more printer paper for the office"),
)

UNRELATED: tuple[str, ...] = (
    "What is the capital of Peru?", "Convert 5 miles to kilometres", "Tell me a joke about penguins",
    "Summarise the plot of Hamlet in two sentences", "What does the word 'ephemeral' mean?",
    "Suggest a name for a golden retriever puppy", "How many days are there in a leap year?",
    "Recommend a good book about the history of Rome", "What is 17 times 23?",
    "Explain photosynthesis to a ten year old", "Write a haiku about autumn leaves",
    "Which planet is closest to the sun?", "Give me a recipe for pancakes", "Who painted the Mona Lisa?",
    "What is the boiling point of water in Fahrenheit?", "Suggest three warm-up stretches before running",
    "Translate 'good morning' into Spanish", "What is the tallest mountain in Africa?",
    "How do I tie a bowline knot?", "List the primary colours",
)

LESSON_MARKS = ("[lesson from a FAILED attempt", "[worked before]", "[partly worked before]")


@dataclass(frozen=True)
class Pitfall:
    tool: str
    arg: str
    value: str
    why: str
    task: str
    paraphrase: str
    style: str  # "raise" | "status" | "text": how the tool reports its failure

    @property
    def error(self) -> str:
        return f"{self.tool} requires {self.arg}={self.value} ({self.why})"


def pitfalls() -> list[Pitfall]:
    styles = ("raise", "status", "text")
    return [Pitfall(*row, style=styles[i % 3]) for i, row in enumerate(PITFALLS)]


def _make_tool(p: Pitfall) -> Any:
    from langchain_core.tools import StructuredTool, ToolException

    def run(**kwargs: Any) -> str:
        if str(kwargs.get(p.arg, "")).lower() == p.value.lower():
            return f"{p.tool} done"
        if p.style == "raise":
            raise PermissionError(p.error)
        if p.style == "status":
            raise ToolException(f"Error: {p.error}")
        return f"Error: {p.error}"

    from pydantic import create_model

    schema = create_model(f"{p.tool}_args", target=(str, ""), **{p.arg: (str, "")})
    tool = StructuredTool.from_function(func=run, name=p.tool, description=f"{p.tool.replace('_', ' ')}.",
                                        args_schema=schema)
    tool.handle_tool_error = p.style == "status"
    return tool


def _policy(plans: dict[str, Pitfall]) -> Any:
    """The scripted model: plans the tool call for a task; follows ``<tool> requires a=b`` hints it
    finds in its system prompt; gives up after a failed call, reports success after a good one."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    def reply(messages: list[Any]) -> Any:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            failed = last.status == "error" or last.text.startswith("Error")
            return "I could not finish the task." if failed else "Done."
        task = next(m.text for m in reversed(messages) if isinstance(m, HumanMessage))
        plan = plans.get(task)
        if plan is None:
            return "Here is my answer."  # an unrelated task: no tool needed
        system = messages[0].text if isinstance(messages[0], SystemMessage) else ""
        args = {"target": task}
        args.update(re.findall(rf"{plan.tool} requires (\w+)=([^\s,;)]+)", system))
        return AIMessage("", tool_calls=[{"name": plan.tool, "args": args, "id": f"call-{plan.tool}"}])

    return reply


def _first_call_failed(agent: Any, task: str, bank: str) -> tuple[bool, bool]:
    """(the run's first tool call failed, the run raised)."""
    from langchain_core.messages import ToolMessage

    try:
        out = agent.invoke({"messages": [("user", task)]}, context={"bank_id": bank})
    except PermissionError:
        return True, True
    results = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    return bool(results) and (results[0].status == "error" or results[0].text.startswith("Error")), False


def run(embedder: Any = None, *, memory: bool = True, limit: int | None = None) -> dict[str, Any]:
    """One condition: the pitfalls once, their paraphrases, then the unrelated tasks (``limit``:
    only the first N of each, for a smoke run)."""
    from langchain.agents import create_agent

    from hindsight_core import MemoryEngine
    from hindsight_lg import HindsightMiddleware
    from hindsight_lg.testing import ScriptedChatModel

    items = pitfalls()[:limit]
    unrelated = UNRELATED[:limit]
    plans = {p.task: p for p in items} | {p.paraphrase: p for p in items}
    model = ScriptedChatModel(responses=[_policy(plans)], cycle=True)
    engine = MemoryEngine.ephemeral(embedder=embedder)
    middleware = [HindsightMiddleware(engine)] if memory else []
    agent = create_agent(model, tools=[_make_tool(p) for p in items], middleware=middleware)
    started = time.perf_counter()
    first = [_first_call_failed(agent, p.task, "bench") for p in items]
    retries = [_first_call_failed(agent, p.paraphrase, "bench") for p in items]
    lessons_seen = 0
    for task in unrelated:
        n = len(model.calls)
        agent.invoke({"messages": [("user", task)]}, context={"bank_id": "bench"})
        system = model.calls[n][0].text if model.calls[n] and model.calls[n][0].type == "system" else ""
        lessons_seen += any(mark in system for mark in LESSON_MARKS)
    engine.close()
    return {
        "memory": memory,
        "pitfalls": len(items),
        "first_attempt_errors": sum(f for f, _ in first),
        "runs_that_raised": sum(r for _, r in first + retries),
        "repeat_errors": sum(f for f, _ in retries),
        "repeat_error_rate": round(100 * sum(f for f, _ in retries) / len(items), 1),
        "unrelated_tasks": len(unrelated),
        "unrelated_with_lesson": lessons_seen,
        "unrelated_lesson_rate": round(100 * lessons_seen / len(unrelated), 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def _set_tool(name: str, errors: dict[str, str]) -> Any:
    """A tool of an independent set: fails with its pitfall's error (the one named by ``target``'s task)
    unless the call says the lesson was heeded."""
    from langchain_core.tools import StructuredTool, ToolException
    from pydantic import create_model

    def run(target: str = "", heeded: str = "") -> str:
        if heeded == "yes":
            return f"{name} done"
        raise ToolException(f"Error: {errors.get(target) or next(iter(errors.values()))}")

    tool = StructuredTool.from_function(func=run, name=name, description=f"{name.replace('_', ' ')}.",
                                        args_schema=create_model(f"{name}_args", target=(str, ""), heeded=(str, "")))
    tool.handle_tool_error = True
    return tool


def run_set(path: str, embedder: Any = None, *, check_tool_calls: bool = True,
            limit: int | None = None, lesson_match: Any = "auto") -> dict[str, Any]:
    """A lesson-transfer set (``benchmarks/data/lesson_transfer_<set>.json``) end to end through
    ``create_agent`` with ``HindsightMiddleware``: each pitfall's goal fails once; each paraphrase then
    plans the same tool, and the scripted model heeds the lesson when its prompt (the plan's context, or
    the second look) quotes the pitfall's error; unrelated goals call no tool. Reported: repeated errors,
    second looks (model calls beyond one per step) and unrelated goals whose plan's context held a lesson.
    ``limit``: only the first N pitfalls and unrelated goals (a smoke run); ``lesson_match``: the
    middleware's (``"bank"`` with the check on: more lessons up front, fewer second looks)."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    from benchmarks.lesson_transfer import load
    from hindsight_core import MemoryEngine
    from hindsight_core._render import escape_text
    from hindsight_core.lifecycle.pii import redact
    from hindsight_lg import HindsightMiddleware
    from hindsight_lg.testing import ScriptedChatModel

    items, unrelated, _ = load(path=path)
    items, unrelated = items[:limit], unrelated[:limit]
    plans = {p.goal: p for p in items} | {q: p for p in items for q in p.paraphrases}
    # a lesson quotes its error as stored and rendered: personal data redacted (a phone number in an
    # example), each line on its own in the prompt, so the first line's start is what the model can find
    quoted = {p.error: escape_text(redact(p.error).text.splitlines()[0][:80]) for p in items}
    errors: dict[str, dict[str, str]] = {}
    for p in items:
        for task in (p.goal, *p.paraphrases):
            errors.setdefault(p.tool, {})[task] = p.error

    def reply(messages: list[Any]) -> Any:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            return "I could not finish the task." if last.status == "error" else "Done."
        task = next(m.text for m in reversed(messages) if isinstance(m, HumanMessage))
        plan = plans.get(task)
        if plan is None:
            return "Here is my answer."
        system = messages[0].text if isinstance(messages[0], SystemMessage) else ""
        heeded = "yes" if quoted[plan.error] in system else ""
        return AIMessage("", tool_calls=[{"name": plan.tool, "args": {"target": task, "heeded": heeded},
                                          "id": f"call-{len(messages)}"}])

    model = ScriptedChatModel(responses=[reply], cycle=True)
    engine = MemoryEngine.ephemeral(embedder=embedder)
    tools = [_set_tool(name, by_task) for name, by_task in errors.items()]
    middleware = HindsightMiddleware(engine, check_tool_calls=check_tool_calls, lesson_match=lesson_match)
    agent = create_agent(model, tools=tools, middleware=[middleware])

    def ask(task: str) -> tuple[bool, int, str]:
        """(the run's first tool call failed, model calls, the first call's system prompt)."""
        n = len(model.calls)
        out = agent.invoke({"messages": [("user", task)]}, context={"bank_id": "bench"})
        results = [m for m in out["messages"] if isinstance(m, ToolMessage)]
        first = model.calls[n]
        return (bool(results) and results[0].status == "error", len(model.calls) - n,
                first[0].text if first and first[0].type == "system" else "")

    started = time.perf_counter()
    for p in items:
        ask(p.goal)
    asked = [(p, q) for p in items for q in p.paraphrases]
    retries = [ask(q) for _, q in asked]
    later = [ask(u) for u in unrelated]
    engine.close()
    n = len(retries)
    return {"set": path, "check_tool_calls": check_tool_calls, "lesson_match": str(lesson_match), "paraphrases": n,
            "repeat_errors": sum(f for f, _, _ in retries),
            "repeat_error_rate": round(100 * sum(f for f, _, _ in retries) / n, 1),
            "second_looks": sum(calls > 2 for _, calls, _ in retries),  # a step is a tool call, then the answer
            "unrelated_goals": len(later),
            "unrelated_with_lesson": sum(any(m in s for m in LESSON_MARKS) for _, _, s in later),
            "unrelated_second_looks": sum(calls > 1 for _, calls, _ in later),
            "repeated": [f"{q!r} ({p.tool})" for (p, q), (failed, _, _) in zip(asked, retries) if failed],
            "seconds": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hash", action="store_true", help="use the deterministic HashEmbedder (quick smoke run)")
    p.add_argument("--out", default=None, help="write the summary as JSON here")
    p.add_argument("--data", default=None,
                   help="a lesson-transfer set file: run it end to end with the second look (the plan's "
                        "context precise, or the bank's own), and without it")
    args = p.parse_args(argv)
    embedder = None
    if args.hash:
        from hindsight_core.testing import HashEmbedder

        embedder = HashEmbedder()
    if args.data:
        summary = {"second_look": run_set(args.data, embedder),
                   "second_look_bank_context": run_set(args.data, embedder, lesson_match="bank"),
                   "context_only": run_set(args.data, embedder, check_tool_calls=False)}
    else:
        summary = {"with_memory": run(embedder, memory=True), "without_memory": run(embedder, memory=False)}
    summary["embedder"] = "hash" if args.hash else "all-MiniLM-L6-v2"
    print(json.dumps(summary, indent=2))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(summary, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
