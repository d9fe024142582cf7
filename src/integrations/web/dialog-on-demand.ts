/// <reference lib="dom" />
import type { ConfirmRequest } from './dialog.js';

export type { ConfirmRequest };

/**
 * Asks the person in the accessible dialog *in the page* (dialog.ts), whose code is
 * loaded when the first question comes: a page that never asks never downloads it. A
 * dialog that cannot be loaded rejects, which the web layer takes as a denial (fail
 * closed). An opt-in (`createWebGuard({ confirm: confirmWithDialog })`): an agent that
 * drives the page with trusted input (Playwright, CDP, an extension) can press Approve.
 */
export async function confirmWithDialog(
  request: ConfirmRequest,
  doc: Document = document,
): Promise<boolean> {
  return (await import('./dialog.js')).confirmWithDialog(request, doc);
}
