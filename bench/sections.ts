/**
 * The feature sections of `npm run bench` (see lib/section.ts), in the order the full run takes
 * them; `npm run bench -- --only NAME` runs one. Loaded lazily: a section's imports cost nothing
 * when it does not run.
 */
import type { BenchSection } from './lib/section.ts';

export const SECTIONS: Record<string, () => Promise<BenchSection>> = {
  community: () => import('./community.ts').then((m) => m.section),
  conversation: () => import('./conversation.ts').then((m) => m.section),
  organization: () => import('./organization.ts').then((m) => m.section),
  's3-store': () => import('./s3-store.ts').then((m) => m.section),
  booru: () => import('./booru.ts').then((m) => m.section),
  knowledge: () => import('./knowledge.ts').then((m) => m.section),
  'video-uploads': () => import('./video-uploads.ts').then((m) => m.section),
  'video-search': () => import('./video-search.ts').then((m) => m.section),
};
