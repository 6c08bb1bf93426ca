/** Posts as the API shows them: declared once in the kernel (src/kernel/shapes.ts); the uploader's own view here. */

export {
  DuplicateMatches,
  Post,
  PostPage,
  PostVersion,
  PostVersionPage,
  Thumbnails,
} from '../../kernel/shapes.ts';

export { CreatedPost } from '../../posts/post-routes.ts';
