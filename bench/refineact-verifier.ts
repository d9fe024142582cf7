import { allowedProposal, groupSize, refusedProposal, rulesPerAction } from './generate.js';

/**
 * The RefineAct-style step verifier in SWI-Prolog (RefineAct, 2026, §4.3–4.4): issue #3's
 * reference for the engine's speed. The knowledge base holds the refiner's facts —
 * `refined_step(StepNum, Action, Params, Pre, Post, Constraint)` and
 * `risky_action(Action, Pattern, Disposition)` — and the state of the task: the satisfied
 * facts (observed state and recorded postconditions) and the approved step numbers. A
 * proposed step (tool, parameters, and its input text) is verified as §4.4 describes:
 *
 * 1. risky action check: the tool's patterns, longest first, as substrings of the input;
 *    `reject` blocks the step, `user_consent` / `repeat_consent` ask for confirmation;
 * 2. chain resolution: `get_all_steps_for_action(Action, StepList)`, each step classified
 *    as completed (approved before and not repeatable: skipped), another call (its
 *    parameters are not the proposal's), ready (its precondition is `true` or among the
 *    satisfied facts) or blocked; the ready step with the lowest number is taken;
 * 3. state tracking: the taken step's postcondition is recorded as satisfied (and
 *    counted) and its number as approved; with a constraint or a consent pattern the
 *    verdict asks for confirmation; without a ready step it asks for a revision, naming
 *    the unmet precondition and the steps whose postcondition would establish it.
 *
 * Written as a Prolog programmer would for speed: the facts are found through their bound
 * argument (first-argument indexing, and SWI-Prolog's just-in-time index on `Action`, the
 * second argument of `refined_step/6`), `memberchk` for parameters, the risky patterns
 * ordered by length once when the program loads (the order belongs to the knowledge base,
 * not to a step), counting with `flag/3`.
 */
const verifier = String.raw`
:- dynamic satisfied/1, approved/1, risky_action/3, risky_pattern/3.

verify(Action, Params, Input, Verdict) :-
    risky_match(Action, Input, Risk),
    (   Risk = reject-Pattern
    ->  Verdict = rejected(Pattern)
    ;   get_all_steps_for_action(Action, Steps),
        classify_steps(Steps, Params, Ready, Blocked),
        resolve(Ready, Blocked, Action, Params, Risk, Verdict)
    ).

% The first pattern of the tool, longest first, found in the input; none when none is.
risky_match(Action, Input, Match) :-
    (   risky_pattern(Action, Pattern, Disposition),
        sub_atom(Input, _, _, _, Pattern)
    ->  Match = Disposition-Pattern
    ;   Match = none
    ).

% risky_pattern/3: the risky_action/3 facts of each tool, longest pattern first.
index_risky_patterns :-
    retractall(risky_pattern(_, _, _)),
    findall(Action-Negative-Pattern-Disposition,
            ( risky_action(Action, Pattern, Disposition),
              atom_length(Pattern, Length),
              Negative is -Length ),
            Found),
    msort(Found, Ordered),
    forall(member(Action-_-Pattern-Disposition, Ordered),
           assertz(risky_pattern(Action, Pattern, Disposition))).

:- initialization(index_risky_patterns).

get_all_steps_for_action(Action, Steps) :-
    findall(step(Number, Params, Pre, Post, Constraint),
            refined_step(Number, Action, Params, Pre, Post, Constraint),
            Steps).

% Steps come in step order, so the first ready step has the lowest number.
classify_steps([], _, [], []).
classify_steps([Step|Steps], Params, Ready, Blocked) :-
    Step = step(Number, StepParams, Pre, _, _),
    (   completed(Number)
    ->  Ready = Ready1, Blocked = Blocked1
    ;   \+ params_match(StepParams, Params)
    ->  Ready = Ready1, Blocked = Blocked1
    ;   precondition_holds(Pre)
    ->  Ready = [Step|Ready1], Blocked = Blocked1
    ;   Ready = Ready1, Blocked = [Step|Blocked1]
    ),
    classify_steps(Steps, Params, Ready1, Blocked1).

completed(Number) :-
    approved(Number),
    \+ repeatable_step(Number).

% Every parameter the step grounds has that value in the proposal.
params_match([], _).
params_match([Param|Params], Given) :-
    memberchk(Param, Given),
    params_match(Params, Given).

% A precondition on observed state is a satisfied fact with conditions on its values.
precondition_holds(true) :- !.
precondition_holds(state(Fact, Conditions)) :- !,
    satisfied(Fact),
    conditions_hold(Conditions).
precondition_holds(Fact) :-
    satisfied(Fact).

conditions_hold([]).
conditions_hold([Condition|Conditions]) :-
    call(Condition),
    conditions_hold(Conditions).

resolve([step(Number, _, _, Post, Constraint)|_], _, _, _, Risk, Verdict) :- !,
    (   Constraint == none, Risk == none
    ->  approve(Number, Post),
        Verdict = approved
    ;   % approve/2 records it once the user confirms.
        Verdict = approved_with_constraints(Number, Post, Constraint, Risk)
    ).
resolve([], [step(_, _, Pre, _, _)|_], _, _, _, revision_required(unmet(Pre), Candidates)) :- !,
    get_action_param_candidates_for_postcondition(Pre, Candidates).
resolve([], [], Action, Params, _, revision_required(no_step(Action, Params), [])).

approve(Number, Post) :-
    (   approved(Number) -> true ; assertz(approved(Number)) ),
    flag(Post, Count, Count + 1),
    (   Count =:= 0 -> assertz(satisfied(Post)) ; true ).

% Observed state is established by observing it, never by a step: no candidates for it.
get_action_param_candidates_for_postcondition(Post, Candidates) :-
    findall(Action-Params, refined_step(_, Action, Params, _, Post, _), Candidates).
`;

/** A Prolog quoted atom. */
function atom(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function term(value: unknown): string {
  return typeof value === 'number' ? String(value) : atom(String(value));
}

/** A proposal of generate.ts as ground terms: its tool, its parameter list, its input text. */
function proposalTerms(proposal: unknown): { action: string; params: string; input: string } {
  const { name, args } = (proposal as { action: { name: string; args: Record<string, unknown> } })
    .action;
  const params = Object.entries(args).map(([key, value]) => `${key}(${term(value)})`);
  return {
    action: atom(name),
    params: `[${params.join(', ')}]`,
    input: atom(JSON.stringify(args)),
  };
}

// 19:00 and 18:00 in seconds of the day.
const before = 19 * 3600;
const observedAt = 18 * 3600;

/**
 * The knowledge base of the chain of `rules` rules and the verifier, with `steps/1` (the
 * allowed steps to time, as `p(Action, Params, Input)`), `step/3` (verifies one and
 * succeeds only on `approved`) and `refusals_hold/0` (the verifier refuses what the engine
 * refuses). The mapping of generate.ts's rule
 * `@repeat Step<r>: Screen<g>(level >= 1, mode in [on, auto], when < 19:00) & Act<a>(x = r, target = "t<g>") -> Goal<r>`:
 *
 * - one refined step per rule, numbered by the rule: `refined_step(r, 'Act<a>',
 *   [x(r), target('t<g>')], state(screen(g, L, M, _, W), [L >= 1, memberchk(M, [on, auto]),
 *   W < 68400]), 'Goal<r>', none)`: the action's pinned arguments are the step's parameters,
 *   its state condition the precondition, its head the postcondition;
 * - `@repeat` is a repeatable step (`repeatable_step(r)`): approving it never completes it;
 * - no `@confirm` in the spec, so no constraint (`none`);
 * - no guard in the spec, so no `risky_action` facts: the check looks the tool up and finds
 *   none, as the engine looks up the tool's guards and finds none;
 * - the screens the engine observes (level 5, mode on, item "Item", 18:00, as
 *   preparingObservation) are satisfied facts `screen(g, 5, on, 'Item', 64800)`;
 * - a postcondition is recorded as satisfied and counted (`flag/3`), as the engine counts
 *   achieved objectives.
 *
 * Each step is given as ground terms built before timing: `p('Act<a>', [x(r),
 * target('t<g>')], '{"x":r,"target":"t<g>"}')`, the input text being the call's arguments as
 * the agent sends them, for the substring check.
 */
export function refineActProgram(rules: number, workingRules: readonly number[]): string {
  const lines = [verifier.trim(), ''];
  for (let rule = 0; rule < rules; rule++) {
    const group = Math.floor(rule / groupSize);
    lines.push(
      `refined_step(${rule}, 'Act${Math.floor(rule / rulesPerAction)}', [x(${rule}), target('t${group}')], state(screen(${group}, L, M, _, W), [L >= 1, memberchk(M, [on, auto]), W < ${before}]), 'Goal${rule}', none).`,
    );
  }
  for (let rule = 0; rule < rules; rule++) lines.push(`repeatable_step(${rule}).`);
  const groups = new Set(workingRules.map((rule) => Math.floor(rule / groupSize)));
  for (const group of groups)
    lines.push(`satisfied(screen(${group}, 5, on, 'Item', ${observedAt})).`);
  const allowed = workingRules.map((rule) => proposalTerms(allowedProposal(rule)));
  lines.push('steps(Ps) :- Ps = [');
  lines.push(
    allowed.map((step) => `  p(${step.action}, ${step.params}, ${step.input})`).join(',\n'),
  );
  lines.push('].');
  lines.push('step(Action, Params, Input) :- verify(Action, Params, Input, approved).');
  lines.push(...refusalChecks(workingRules[0] ?? 0));
  return `${lines.join('\n')}\n`;
}

/**
 * What the verifier must refuse, checked after timing (they change the knowledge base and
 * put it back): a step whose precondition does not hold (its screen observed in mode off),
 * a step with parameters no refined step has, and a step whose input holds a `reject`
 * pattern — with a shorter `user_consent` pattern also there, which would only ask for
 * confirmation if patterns were not taken longest first.
 */
function refusalChecks(rule: number): string[] {
  const group = Math.floor(rule / groupSize);
  const allowed = proposalTerms(allowedProposal(rule));
  const refused = proposalTerms(refusedProposal(rule));
  const screen = `screen(${group}, 5, on, 'Item', ${observedAt})`;
  const verify = (step: typeof allowed, verdict: string) =>
    `verify(${step.action}, ${step.params}, ${step.input}, ${verdict})`;
  return [
    'refused(Check, V) :- format(user_error, "the verifier does not refuse ~w: ~q~n", [Check, V]), halt(1).',
    'refusals_hold :-',
    `    retract(satisfied(${screen})),`,
    `    assertz(satisfied(screen(${group}, 5, off, 'Item', ${observedAt}))),`,
    `    ${verify(allowed, 'V')},`,
    `    retract(satisfied(screen(${group}, 5, off, 'Item', ${observedAt}))),`,
    `    assertz(satisfied(${screen})),`,
    "    ( V = revision_required(unmet(_), _) -> true ; refused('an unmet precondition', V) ),",
    `    ${verify(refused, 'W')},`,
    "    ( W = revision_required(no_step(_, _), _) -> true ; refused('parameters no step has', W) ),",
    `    assertz(risky_action(${allowed.action}, '"target"', user_consent)),`,
    `    assertz(risky_action(${allowed.action}, ${atom(`"target":"t${group}"`)}, reject)),`,
    '    index_risky_patterns,',
    `    ${verify(allowed, 'R')},`,
    '    retractall(risky_action(_, _, _)),',
    '    index_risky_patterns,',
    "    ( R = rejected(_) -> true ; refused('a reject pattern', R) ).",
  ];
}
