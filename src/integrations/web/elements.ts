/// <reference lib="dom" />
/** What the page guard knows of form fields and activatable elements. */
import type { TriggerKind } from './options.js';

export const eventKinds: Readonly<Record<string, TriggerKind>> = {
  click: 'click',
  keydown: 'keyboard',
  input: 'input',
  change: 'change',
  submit: 'submit',
};

const valueInputs = new Set([
  'text',
  'search',
  'email',
  'number',
  'tel',
  'url',
  'password',
  'date',
  'time',
  'datetime-local',
  'month',
  'week',
  'range',
  'color',
]);

/** The default triggers of an element: what a person does with it. */
export function defaultTriggers(element: Element): readonly TriggerKind[] {
  const tag = element.tagName.toLowerCase();
  if (tag === 'form') return ['submit'];
  if (tag === 'select' || tag === 'textarea') return ['change'];
  if (
    tag === 'input' &&
    valueInputs.has(((element as HTMLInputElement).type || 'text').toLowerCase())
  )
    return ['change'];
  return ['click', 'keyboard'];
}

export function hasValue(
  element: Element,
): element is HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement {
  const tag = element.tagName.toLowerCase();
  if (tag === 'select' || tag === 'textarea') return true;
  return (
    tag === 'input' && valueInputs.has(((element as HTMLInputElement).type || 'text').toLowerCase())
  );
}

export function initialValue(
  element: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
): string {
  if (element.tagName.toLowerCase() === 'select') {
    const options = Array.from((element as HTMLSelectElement).options);
    return (options.find((option) => option.defaultSelected) ?? options[0])?.value ?? '';
  }
  return (element as HTMLInputElement).defaultValue;
}

export function isCheckbox(element: Element): element is HTMLInputElement {
  return (
    element.tagName.toLowerCase() === 'input' && (element as HTMLInputElement).type === 'checkbox'
  );
}

/** Elements a browser activates (a click follows Enter or Space). */
export function activatable(element: Element): boolean {
  const tag = element.tagName.toLowerCase();
  if (tag === 'button' || tag === 'summary') return true;
  if (tag === 'a') return element.hasAttribute('href');
  if (tag === 'input')
    return ['button', 'submit', 'reset', 'checkbox', 'radio', 'image'].includes(
      (element as HTMLInputElement).type,
    );
  return false;
}

/** How long a keyboard activation's follow-up click belongs to it. */
export const activationWindowMs = 1000;
