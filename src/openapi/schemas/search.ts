/** What the searches return: `/image/search` pages with their facets, and near-duplicate matches. */

export { Transform } from '../../kernel/shapes.ts';
export { ImageSearchFacets, ImageSearchResult } from '../../search/image-search/result-shapes.ts';

export { SimilarResult } from '../../search/similar/schemas.ts';
