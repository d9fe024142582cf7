/// <reference lib="dom" />
import type { ConfirmRequest } from './dialog.js';

export type { ConfirmRequest };

/**
 * Asks the person in the accessible dialog (dialog.ts), whose code is loaded when the
 * first question comes: a page that never asks never downloads it. A dialog that cannot
 * be loaded rejects, which the web layer takes as a denial (fail closed).
 */
export async function confirmWithDialog(
  request: ConfirmRequest,
  doc: Document = document,
): Promise<boolean> {
  return (await import('./dialog.js')).confirmWithDialog(request, doc);
}
