/** Tags and their post counts: declared in the kernel and the tags feature. */
export { Tag, TagCategory } from '../../kernel/shapes.ts';
export { TagCount, TagPage } from '../../tags/schemas.ts';
