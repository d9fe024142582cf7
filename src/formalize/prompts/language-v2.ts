import { createSchema } from '../../language/index.js';
import { text, tool, variable } from './example-schema.js';
import type { WorkedExample } from './examples.js';

/**
 * Language v2 in the encoder's prompt (LANGUAGE.md §7, docs/language.md): what real tool
 * tasks need beyond v1 — structure inside tool results, counts, bindings from one call to
 * the next, negation and absence, alternatives, per-value repetition and the final
 * answer. Appended to the v1 summary of every encoder prompt; fixed text, so it stays in
 * the cacheable head.
 */
export const languageV2Summary = `# Structure, counts, bindings, negation (version 2)
- A variable typed \`json\` / \`list<json>\` holds the JSON the tool returned. Read inside it with paths and filters:
  \`account.balance\`; \`results[name = "Mike Johnson", open_now = true]\` (the elements satisfying every constraint);
  \`files[it matches /\\.pdf$/]\` (\`it\` is a plain element); projections \`results[name = "Mike Johnson"].unique_id\`.
  Never match JSON text with a regex or \`contains\` to find an element: filter it.
  \`record{...}\` / \`list<record{...}>\` work the same but list their fields and types: name only those fields.
- \`count(list)\`, \`count(list[filter])\`, \`len(text)\` are numbers: \`SearchResult(count(results[name = "Ann"]) = 1)\`.
  \`any(list) op v\` holds for some element, \`each(list) op v\` for every element.
- \`x as number|date|time|datetime|boolean\` reads text the tool returned as that type:
  \`SetReminder(reminder_time as datetime <= 2025-03-15T06:00)\`.
- Bindings: \`$name\` in a value position. The first \`field = $x\` binds it (on a projection: some element's value);
  later uses must equal it, across the atoms of one rule — "delete only the id the search returned":
  \`SearchResult(results[title = "Q3"].id = $id) & DeleteFile(file_id = $id) -> Deleted\`.
- \`not Obj\` (not achieved yet); \`not P(constraints)\` (no such instance); \`absent(arg)\` in an action pattern (the
  argument is not given). Alternatives: \`(A | B) & C -> X\`, with \`|\` only inside parentheses.
- "All my …" is \`forall(A => B)\`: every binding A gives also meets B (B binds nothing new); pin what A ranges over
  outside it: \`UserResult(user_id = $u) & forall(UserResult(user_id = $u, reservations = $r) => CancelResult(reservation_id = $r)) -> Done\`.
  \`not (A & B)\`: no binding meets A and B together.
- Numbers of a list: \`sum(list)\`, \`min(list)\`, \`max(list)\` (\`sum(payment_methods.amount) <= 500\`); positions
  \`list[0]\`, \`list[-1]\` (first, last). These, \`count(…)\` and \`len(…)\` bind too: \`sum(flights.price) = $total\`.
- Conditions on bindings are atoms (they bind nothing: patterns bind each \`$x\` in them): \`$total - $paid <= 600\`,
  \`$free = max(0, $bags - 2 * $n)\`; a budget, "the cheapest"
  (\`R(items[id = $i].price = $p) & not (R(items.price = $q) & $q < $p)\`), a time \`now - 24h\` / \`today + 1d\`.
- \`@repeat(per: arg)\`: the step may run once per distinct value of the action's argument (one SMS per number);
  \`@repeat(3, per: arg)\` caps it.
- The agent's final answer is the state \`Answer(text)\` while it finishes: a Done rule may require what the user
  must be told (\`Answer(text contains $name)\`) or must not be (\`not Answer(text contains "guarantee")\`). An answer
  that shows tool calls never made is refused anyway; an agent that needs the user's choice asks (always allowed).`;

/** Worked examples that use v2 (a tool result filtered and counted; a binding from a search). */
export const workedExamplesV2: readonly WorkedExample[] = [
  {
    kind: 'tools',
    title: 'Tools: count and filter a result list, bind the id the search returned',
    instruction: 'Run a background check on Mike Johnson.',
    schema: createSchema('spokeo', [
      ...tool(
        'SpokeoSearchPeople',
        'Searches people by name, email, phone or address.',
        [variable('search_term', text), variable('search_type', text)],
        [
          {
            ...variable(
              'results',
              { kind: 'list', element: 'text' },
              'People found: unique_id, name, location, age_range, related_to.',
            ),
            jsonText: true,
          },
        ],
        false,
      ),
      ...tool(
        'SpokeoBackgroundCheck',
        'Runs a background check on a person found by a search.',
        [variable('unique_id', text, 'The unique_id of a search result.')],
        [
          {
            ...variable(
              'background_data',
              text,
              'Criminal, court, employment and education records.',
            ),
            jsonText: true,
          },
        ],
        true,
      ),
    ]),
    spec: [
      'SpokeoSearchPeople(search_term ~ "Mike Johnson") -> Searched',
      '# only when the search found exactly one Mike Johnson, and only his id',
      'Searched & SpokeoSearchPeopleResult(count(results[name = "Mike Johnson"]) = 1, results[name = "Mike Johnson"].unique_id = $id) & SpokeoBackgroundCheck(unique_id = $id) -> Checked',
      'Checked -> Done',
    ].join('\n'),
  },
  {
    kind: 'tools',
    title: 'Tools: one message per recipient the lookup returned, and nobody in copy',
    instruction:
      'Email everyone in the "Hiking" group, each on their own, that Saturday\'s hike is cancelled.',
    schema: createSchema('mail', [
      ...tool(
        'ContactsSearch',
        'Finds contacts by group.',
        [variable('group', text)],
        [
          {
            ...variable(
              'contacts',
              { kind: 'list', element: 'text' },
              'Contacts: name, email, group.',
            ),
            jsonText: true,
          },
        ],
        false,
      ),
      ...tool(
        'GmailSendEmail',
        'Sends an email.',
        [
          variable('to', text),
          variable('subject', text),
          variable('body', text),
          variable('cc', text),
        ],
        [variable('success', { kind: 'boolean' })],
        true,
      ),
    ]),
    spec: [
      'ContactsSearch(group = "Hiking") -> Found',
      '@repeat(per: to)',
      'Found & ContactsSearchResult(contacts[group = "Hiking"].email = $to) & GmailSendEmail(to = $to, body ~ "Saturday\'s hike is cancelled", absent(cc)) -> Sent',
      'Sent -> Done',
    ].join('\n'),
  },
];
