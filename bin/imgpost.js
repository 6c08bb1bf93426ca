#!/usr/bin/env node
// The CLI is TypeScript run in place (no build step): register tsx's loader, then load it.
// A dynamic import, because static imports would be resolved before the loader exists.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
