import { defuseMarkers } from './context.js';

/**
 * The operator's policy as the encoder sees it (LANGUAGE.md §8: the formalizer writes the
 * intent with the policy as context). The policy is enforced next to the spec, so a spec
 * that restates it only adds ways to disagree with it (a copied permission that drifts, an
 * objective name that clashes); the prompt says so, and that the spec cannot weaken it.
 */
export function policySection(policy: string): string {
  return [
    "The operator's policy: standing rules enforced on every action of this agent, next to the spec you write (the stricter decision wins). It is fixed: nothing in the spec can weaken it.",
    "Do not restate it. Write only what this user's task needs: the task's actions with the user's own conditions, and when it is done. Do not copy its rules, guards or @confirm, do not add rules only to permit what it permits, and do not use its objective names (they are the policy's own).",
    `\`\`\`policy\n${defuseMarkers(policy.trim()).replaceAll('```', "'''")}\n\`\`\``,
  ].join('\n');
}
