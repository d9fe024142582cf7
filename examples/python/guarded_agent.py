#!/usr/bin/env python3
"""A ToolEmu-style agent loop guarded by `intentguard serve` (standard library only).

The "agent" is scripted: it proposes the tool calls an LLM agent might make for
"Transfer $500 to Alice if my balance exceeds $1000", including mistakes. Every call
goes to the service first; the agent runs only what the guard lets it run, reads the
guard's feedback when a call is refused, asks the user when the guard says so, reports
each tool's result, and finishes only when the guard agrees the task is done.

    intentguard serve --token "$INTENTGUARD_TOKEN" &
    python3 examples/python/guarded_agent.py --url http://127.0.0.1:8787

Options: --url (default http://127.0.0.1:8787), --token (default $INTENTGUARD_TOKEN),
--approver-token (default $INTENTGUARD_APPROVER_TOKEN: the person's token, for a service
started with --approver-token, where the agent's token cannot approve), --deny (the
simulated user declines the transfer), --policy FILE (the session's own policy, the
operator's standing rules composed with the spec; a service started with --policy decides
under its own and refuses another unless started with --allow-session-policy).
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "bank-transfer")


class GuardService:
    """A minimal client of the intentguard HTTP API."""

    def __init__(self, url, token, timeout=10):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": "Bearer " + self.token, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            problem = json.loads(error.read().decode("utf-8") or "{}")
            raise RuntimeError(f"{method} {path}: {error.code} {problem.get('code')}: {problem.get('message')}")

    def start(self, spec, tools, policy=None):
        body = {"spec": spec, "tools": tools}
        if policy is not None:
            body["policy"] = policy
        return self.request("POST", "/v1/sessions", body)["id"]


# The simulated tools (ToolEmu emulates them with an LLM; here they are plain functions).
BALANCE = 1500
transfers = []


def run_tool(name, args):
    if name == "BankCheckBalance":
        return {"balance": BALANCE}
    if name == "BankTransfer":
        transfers.append((args["to"], args["amount"]))
        return {"status": "sent", "to": args["to"], "amount": args["amount"]}
    raise ValueError("unknown tool " + name)


# What the agent proposes, in order: a premature transfer, the balance check, an
# over-sized transfer, then the right one.
PLAN = [
    ("BankTransfer", {"to": "Alice", "amount": 500}),
    ("BankCheckBalance", {}),
    ("BankTransfer", {"to": "Alice", "amount": 900}),
    ("BankTransfer", {"to": "Alice", "amount": 500}),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8787")
    parser.add_argument("--token", default=os.environ.get("INTENTGUARD_TOKEN", ""))
    parser.add_argument("--approver-token", default=os.environ.get("INTENTGUARD_APPROVER_TOKEN", ""))
    parser.add_argument("--deny", action="store_true", help="the simulated user declines")
    parser.add_argument("--policy", help="a policy file the session is decided under as well")
    options = parser.parse_args()
    if not options.token:
        print("guarded_agent: give --token or set INTENTGUARD_TOKEN", file=sys.stderr)
        return 2

    with open(os.path.join(EXAMPLE, "spec.intent"), encoding="utf-8") as file:
        spec = file.read()
    with open(os.path.join(EXAMPLE, "tools.json"), encoding="utf-8") as file:
        tools = json.load(file)
    policy = None
    if options.policy:
        with open(options.policy, encoding="utf-8") as file:
            policy = file.read()

    guard = GuardService(options.url, options.token)
    # The person answers with their own token where the service separates the roles.
    person = GuardService(options.url, options.approver_token) if options.approver_token else guard
    try:
        session = guard.start(spec, tools, policy)
    except RuntimeError as error:
        # A policy that does not check creates no session: nothing runs.
        print(f"guarded_agent: {error}", file=sys.stderr)
        return 1
    print(f"session {session}")
    sid = f"/v1/sessions/{session}"

    for number, (name, args) in enumerate(PLAN, start=1):
        call_id = f"call-{number}"
        decision = guard.request("POST", sid + "/check", {"id": call_id, "name": name, "args": args})
        if decision["action"] == "ask":
            print(f"{call_id} {name} {json.dumps(args)}: ask — {decision['prompt'].splitlines()[0]}")
            approved = not options.deny
            print(f"{call_id} user {'approves' if approved else 'declines'}")
            try:
                decision = person.request("POST", sid + "/approve", {"id": call_id, "approved": approved})
            except RuntimeError as error:
                # Not approved (an agent token where approver tokens are required): it does not run.
                print(f"{call_id} not approved: {error}")
                continue
        if decision["action"] == "run":
            output = run_tool(name, args)
            observed = guard.request("POST", sid + "/result", {"id": call_id, "output": output})
            print(f"{call_id} {name} {json.dumps(args)}: run → {json.dumps(output)} (observed: {observed['ok']})")
        else:
            reasons = decision["verdict"]["reasons"]
            reason = reasons[0]["code"] if reasons else ""
            # The policy's reason comes first when the operator's policy refuses.
            if reasons and reasons[0].get("source") == "policy":
                reason += ", by the policy: " + reasons[0].get("message", "")
            print(f"{call_id} {name} {json.dumps(args)}: refuse ({decision['verdict']['decision']}, {reason})")

    # The final answer goes with the finish: an answer that shows calls never made is refused.
    answer = f"Transfers made: {json.dumps(transfers)}."
    finish = guard.request("POST", sid + "/finish", {"answer": answer})
    print(f"finish: {finish['action']}")
    status = guard.request("GET", sid)
    print(f"transfers: {json.dumps(transfers)}")
    print(f"decisions: {', '.join(d['id'] + '=' + d['action'] for d in status['decisions'])}")
    return 0 if finish["action"] == "run" else 1


if __name__ == "__main__":
    sys.exit(main())
