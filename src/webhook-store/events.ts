/**
 * The post events a webhook can subscribe to (docs/decisions.md §8), in their canonical order. Kept with the
 * webhook tables, the lowest place that stores them; the post kernel's outbox names its events
 * with the same type.
 */
export const EVENT_KINDS = ['create', 'update', 'delete'] as const;
export type PostEventKind = (typeof EVENT_KINDS)[number];

/** Canonical order, no repeats: what is stored and returned. */
export const normaliseEvents = (events: readonly PostEventKind[]): PostEventKind[] =>
  EVENT_KINDS.filter((e) => events.includes(e));
