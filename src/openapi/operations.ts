/**
 * Every endpoint, described once, in the order the document lists them; one file per area under
 * ./operations/. Request schemas are the very zod schemas the routes validate with (imported,
 * never copied), response schemas come from ./schemas.ts. The registry turns this list into the
 * OpenAPI document; the contract test validates recorded responses against it.
 */
import { FEATURES } from '../features.ts';
import type { Operation } from './operation-kit.ts';
import { SERVICE_OPERATIONS } from './operations/service.ts';
export { documentedQuery, type Method, type Operation, type Reply } from './operation-kit.ts';

/** A feature's operations at its place in the document; features not placed below come last. */
const placed = new Set<string>();
function feature(name: string): Operation[] {
  const found = FEATURES.find((f) => f.name === name);
  if (!found) throw new Error(`no feature ${name} in src/features.ts`);
  placed.add(name);
  return [...found.endpoints];
}

// The order is the document's: paths, and the components first reached from them, follow it.
const AREAS: Operation[] = [
  ...feature('session'),
  ...feature('posts'),
  ...feature('versions'),
  ...feature('tags'),
  ...feature('post-search'),
  ...feature('similar'),
  ...feature('image-search'),
  ...feature('webhooks'),
  ...feature('media'),
  ...SERVICE_OPERATIONS,
  ...feature('account-settings'),
  ...feature('favorites'),
  ...feature('user-admin'),
  ...feature('comments'),
  ...feature('votes'),
  ...feature('moderation'),
  ...feature('passkeys'),
  ...feature('direct-upload'),
  ...feature('pools'),
  ...feature('children'),
  ...feature('tag-categories'),
  ...feature('booru'),
];

export const OPERATIONS: Operation[] = [
  ...AREAS,
  ...FEATURES.filter((f) => !placed.has(f.name)).flatMap((f) => f.endpoints),
];
