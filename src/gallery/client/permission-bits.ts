import { h } from './dom.ts';

/** Permission bits in words (docs/decisions.md §2, §14), for the account and admin pages. */
export const PERMISSION_BITS: [number, string][] = [
  [0x1, 'super user (everything)'],
  [0x2, 'upload'],
  [0x4, 'edit any post'],
  [0x2000, 'delete posts'],
  [0x100, 'list users'],
  [0x200, 'edit users'],
  [0x400, 'delete users'],
  [0x800, 'assign permissions'],
  [0x1000, 'govern tags'],
  [0x4000, 'comment'],
];

export const holds = (permission: number, bit: number) => (permission & 0x1) !== 0 || (permission & bit) === bit;

/** A fieldset of checkboxes, one per bit among `offered`; `value()` reads the chosen bits back. */
export function bitBoxes(
  idPrefix: string,
  legend: string,
  offered: number,
  checked: number,
): { el: HTMLFieldSetElement; value(): number } {
  const boxes = PERMISSION_BITS.filter(([bit]) => holds(offered, bit)).map(([bit, label]) => {
    const input = h('input', {
      type: 'checkbox',
      id: `${idPrefix}-${bit.toString(16)}`,
      value: bit,
      checked: (checked & bit) === bit,
    });
    return { bit, row: h('label', { class: 'check', for: input.id }, input, ` ${label}`), input };
  });
  return {
    el: h(
      'fieldset',
      { class: 'bits' },
      h('legend', {}, legend),
      boxes.map((b) => b.row),
    ),
    value: () => boxes.reduce((sum, b) => (b.input.checked ? sum | b.bit : sum), 0),
  };
}
