/// <reference lib="dom" />
/** What the person is asked to approve. */
export interface ConfirmRequest {
  /** The question, e.g. "Pays the deposit with the stored card (PayDeposit) with amount: 20? Why: …" */
  readonly prompt: string;
  /** The action's name and, when the trigger gives one, its label. */
  readonly action: string;
  readonly label?: string;
}

/**
 * Marks the dialog so the web layer never treats its own buttons as guarded targets.
 * The controller's copy (publish.ts) is the same (a test keeps them equal): importing it
 * here would split it into a chunk of its own for the dialog, which loads on demand.
 */
export const dialogAttribute = 'data-intentguard-dialog';

const styles = `
[${dialogAttribute}]{position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:rgba(15,23,42,.55);font:16px/1.4 system-ui,sans-serif}
[${dialogAttribute}] .ig-box{background:#fff;color:#0f172a;max-width:32rem;margin:1rem;padding:1.25rem 1.5rem;border-radius:.75rem;box-shadow:0 10px 30px rgba(0,0,0,.3)}
[${dialogAttribute}] h2{margin:0 0 .5rem;font-size:1.15rem}
[${dialogAttribute}] p{margin:0 0 1rem;white-space:pre-wrap}
[${dialogAttribute}] .ig-buttons{display:flex;gap:.75rem;justify-content:flex-end}
[${dialogAttribute}] button{font:inherit;margin:0;padding:.45rem 1rem;border-radius:.4rem;border:1px solid #475569;background:#fff;color:#0f172a;cursor:pointer}
[${dialogAttribute}] button.ig-approve{background:#1d4ed8;border-color:#1d4ed8;color:#fff}
[${dialogAttribute}] button:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}`;

let dialogCount = 0;

/**
 * Asks the person in an accessible modal dialog: role=dialog, aria-modal, labelled and
 * described, focus moved in and trapped (Tab cycles, focus cannot leave), the rest of the
 * page inert, Escape denies, Enter/Space on a button answers, and focus returns afterwards.
 *
 * Only trusted input answers "approve": a script's synthetic click (`dispatchEvent`) is
 * ignored, so an agent that drives the page with synthetic events cannot approve for the
 * person. An agent that sends trusted input — Playwright, CDP, a browser extension, a
 * computer-use model — can press it like a person: that is why it is an opt-in
 * (`confirm: confirmWithDialog`), and such hosts use `confirm: 'service'` or a function
 * that asks on another device.
 */
export function confirmWithDialog(
  request: ConfirmRequest,
  doc: Document = document,
): Promise<boolean> {
  return new Promise((resolve) => {
    const count = ++dialogCount;
    const before = doc.activeElement as HTMLElement | null;
    const root = doc.createElement('div');
    root.setAttribute(dialogAttribute, '');
    const style = doc.createElement('style');
    style.textContent = styles;
    const box = doc.createElement('div');
    box.className = 'ig-box';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-modal', 'true');
    box.setAttribute('aria-labelledby', `ig-title-${count}`);
    box.setAttribute('aria-describedby', `ig-prompt-${count}`);
    const title = doc.createElement('h2');
    title.id = `ig-title-${count}`;
    title.textContent = 'Allow this action?';
    const text = doc.createElement('p');
    text.id = `ig-prompt-${count}`;
    // textContent, never innerHTML: the prompt carries agent-chosen values.
    text.textContent = request.prompt;
    const buttons = doc.createElement('div');
    buttons.className = 'ig-buttons';
    const deny = doc.createElement('button');
    deny.type = 'button';
    deny.className = 'ig-deny';
    deny.textContent = 'Deny';
    const approve = doc.createElement('button');
    approve.type = 'button';
    approve.className = 'ig-approve';
    approve.textContent = 'Approve';
    buttons.append(deny, approve);
    box.append(title, text, buttons);
    root.append(style, box);

    // Everything else becomes inert, so that neither a pointer nor assistive technology
    // reaches the page behind the question.
    const inerted: Element[] = [];
    for (const child of Array.from(doc.body.children)) {
      if (!child.hasAttribute('inert')) {
        child.setAttribute('inert', '');
        inerted.push(child);
      }
    }
    doc.body.append(root);

    const focusable = [deny, approve];
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        close(false);
      } else if (event.key === 'Tab') {
        event.preventDefault();
        event.stopPropagation();
        const index = focusable.indexOf(doc.activeElement as HTMLButtonElement);
        const next = event.shiftKey
          ? index <= 0
            ? focusable.length - 1
            : index - 1
          : (index + 1) % focusable.length;
        focusable[next]?.focus();
      }
    };
    const onFocus = (event: FocusEvent) => {
      if (!root.contains(event.target as Node)) deny.focus();
    };
    const answer = (approved: boolean) => (event: MouseEvent) => {
      event.stopPropagation();
      // A synthetic click cannot approve; a denial is always accepted.
      if (approved && !event.isTrusted) return;
      close(approved);
    };
    approve.addEventListener('click', answer(true));
    deny.addEventListener('click', answer(false));
    doc.addEventListener('keydown', onKey, true);
    doc.addEventListener('focusin', onFocus, true);
    let open = true;
    function close(approved: boolean) {
      if (!open) return;
      open = false;
      doc.removeEventListener('keydown', onKey, true);
      doc.removeEventListener('focusin', onFocus, true);
      for (const element of inerted) element.removeAttribute('inert');
      root.remove();
      if (before && typeof before.focus === 'function' && before.isConnected) before.focus();
      resolve(approved);
    }
    // Deny has the focus first: a stray Enter must not pay.
    deny.focus();
  });
}
