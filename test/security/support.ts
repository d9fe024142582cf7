import { readFileSync } from 'node:fs';
import {
  checkSpec,
  createSession,
  loadStateSchema,
  loadToolSchema,
  renderDiagnostics,
  type Schema,
  type Session,
  type SessionOptions,
  type Spec,
} from '../../src/index.js';

/**
 * The review's reproductions run against the shipped examples through the public API,
 * as a host would: load a schema, check a spec, start a session.
 */
export const fixedNow = '2025-03-14T12:00';

const examples = new URL('../../examples/', import.meta.url);

export function exampleText(path: string): string {
  return readFileSync(new URL(path, examples), 'utf8');
}

export function bankSchema(): Schema {
  const loaded = loadToolSchema(exampleText('bank-transfer/tools.json'));
  if (!loaded.ok) throw new Error('the bank tools do not load');
  return loaded.value;
}

export function restaurantSchema(): Schema {
  const loaded = loadStateSchema(exampleText('restaurant/states.json'));
  if (!loaded.ok) throw new Error('the restaurant states do not load');
  return loaded.value;
}

export function specFor(text: string, schema: Schema): Spec {
  const checked = checkSpec(text, schema);
  if (!checked.ok)
    throw new Error(`spec does not check:\n${renderDiagnostics(checked.diagnostics, text)}`);
  return checked.value;
}

export function sessionFor(text: string, schema: Schema, options: SessionOptions = {}): Session {
  return createSession(specFor(text, schema), { now: fixedNow, ...options });
}

export const checkBalance = { action: { name: 'BankCheckBalance', args: {} } };

export function transfer(to: string, amount: number) {
  return { action: { name: 'BankTransfer', args: { to, amount } } };
}

export function balanceOf(balance: number) {
  return { updates: { BankCheckBalanceResult: { balance } } };
}
