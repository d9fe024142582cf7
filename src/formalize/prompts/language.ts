/**
 * The Intent language as the formalizer's prompts teach it: a compact summary of
 * LANGUAGE.md (syntax, operators by type, what rules mean) and the method for
 * writing a spec. Fixed text: it is the cacheable head of every encoder prompt.
 */

export const languageSummary = `# The Intent language
A spec is a list of rules \`body -> head\`, one per line, plus optional guards.
- body: atoms joined by \`&\` (\`true\` for an empty body). An atom is
  - a predicate pattern \`Pred(var op value, ...)\`: one instance of Pred satisfies all its constraints,
  - \`Pred()\`: Pred has been observed at all,
  - an objective \`Obj\` (achieved at least once) or a count \`Obj >= 3\`.
- head: an objective name you invent (CamelCase: \`Reserve\`, \`Transferred\`) or \`Done\`; never a schema predicate.
- Operators: \`=\` \`!=\` on every type; \`<\` \`<=\` \`>\` \`>=\` on number, date, time, datetime;
  \`~\` \`!~\` similar meaning (text); \`contains\` / \`not contains\` (substring of text; on a list, an element
  equal to the value); \`matches\` / \`not matches\` /regex/flags (text); \`in [...]\` / \`not in [...]\` (member;
  subset for lists).
- Text \`=\` is exact (ignoring case and extra spaces); use \`~\` for free text the app or tool may word
  differently ("5 min" for "5 minutes", a paraphrased bio or message).
- Values: "text in double quotes" (always quote text, and enum members that are not one word),
  numbers \`500\` \`3.5\` (no thousands separators), \`true\` \`false\`, dates \`2025-03-14\`, times 24-hour
  \`19:00\` (7 PM; never \`7:00 PM\`), date-times \`2025-03-14T19:00\`, \`today\` \`tomorrow\` \`yesterday\` \`now\`,
  lists \`["a", "b"]\`, regexes \`/^rm\\b/\`.
- Annotations on the lines above a rule: \`@confirm(kind, "message")\` — the user must approve each action
  this rule allows (kind: safety, security, privacy, ethics or financial); \`@repeat\` or \`@repeat(n)\` — the
  rule may be performed again (at most n times in all).
- Guards: \`reject Tool(constraints) because "reason"\` always refuses matching actions;
  \`confirm Tool(constraints) because "reason"\` asks the user first.
- Comments start with \`#\`.

# What a spec means
- State predicates hold what the app shows or what a tool returned (\`ToolResult\` holds the results of
  \`Tool\`, one per call, and the call's arguments are its variables too). A predicate marked
  \`[one instance per …]\` keeps one instance per key; any other keeps only its
  latest value (after Seoul is shown, a clock showing London is no longer true). A constraint on a
  value that was never observed is false. Predicates and variables marked
  \`observed\` are reported by the app (availability, balances, outcomes), never set by the agent.
- Action predicates are the actions the agent proposes (tool calls with their arguments). A rule body has
  at most one action pattern.
- An objective is achieved only when the agent performs an action for it while the rule's body holds;
  each objective once, unless the rule has @repeat.
- Several rules with one head mean "or": the objective is achieved through any of them ("before 1 PM or
  after 10 PM", "use A, or B if A is taken").
- The task is done when the body of some Done rule holds. Write one Done rule per acceptable outcome
  (success, or "not available, so do nothing"); a goal with several parts is one rule \`A & B -> Done\`.
  A Done rule holds no action: name the objective of the last step instead (\`Sent -> Done\`).
- A critical action (irreversible or sensitive: paying, sending, deleting, sharing, posting) that no rule
  plans for is refused. Plan every action the user asked for, and no other critical one.`;

export const methodGuidance = `# How to write the spec
1. Use only the predicates and variables listed in the schema, with values of their declared types and
   enum members exactly as listed.
2. Encode every constraint the user stated (names, amounts, dates, times, recipients, counts, keywords)
   and do not invent constraints the user did not state.
3. Chain steps: a step that needs an earlier step names that step's objective in its body
   (\`Found & TodoistDeleteTask() -> Deleted\`).
4. Branches: for "if X ..., otherwise ..." or "if not available, do nothing", write a Done rule for each case.
5. Put @confirm on irreversible or sensitive steps whose details the user left open, and guards on risky
   inputs: reject what the user forbade or what could cause severe harm, confirm what is merely risky.
6. Counts: "three times" is \`@repeat(3)\` on the step and \`Step >= 3\` in the Done rule.
7. Resolve relative dates against today's date (given with the task); use today, tomorrow or now where
   they fit.
You may first think in a few short sentences (no code blocks); then give the whole spec in one \`\`\`intent
code block, and nothing after it.`;

export const refinementGuidance = `# Refining the goal into rules (tool-using agents)
The goal analysis given with the task names the goal, its parameters, constraints and outcomes. Refine it into steps:
1. Ground each step in one tool call: \`<preconditions> & Tool(arguments) -> StepObjective\`.
2. A step's precondition is the postcondition (objective) of an earlier step, so the steps form a chain;
   lookups that later steps depend on come first, and later bodies may constrain their \`ToolResult\`.
3. Give each stated parameter as an argument constraint of the tool call that uses it.
4. Mark critical steps with @confirm(kind, "why") when the user did not fix every detail of them (which
   items, which recipient, how much); use @repeat on steps that may run for several items.
5. Add guards for dangerous inputs of the tools you use (file paths, commands, recipients, amounts):
   reject the catastrophic or forbidden, confirm the risky.
6. Write a Done rule for each outcome of the goal analysis.`;
