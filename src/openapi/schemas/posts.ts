/** Posts as the API shows them: declared once in the kernel (src/kernel/shapes.ts); the uploader's own view here. */
import { Self } from './accounts.ts';
import { postFields } from '../../kernel/shapes.ts';
import { z } from '../../util/zod.ts';

export {
  DuplicateMatches,
  Post,
  PostPage,
  PostVersion,
  PostVersionPage,
  Thumbnails,
} from '../../kernel/shapes.ts';

export const CreatedPost = z
  .object({ ...postFields, uploader: Self })
  .strict()
  .openapi('CreatedPost', { description: 'A Post whose uploader is the caller, as Self' });
