/** Similar images (POST /api/post/similar?transforms=dihedral, docs/decisions.md §11) as a grid with distances. */
import { api, ok, thumbnailOf, type Schemas } from './api.ts';
import { h } from './dom.ts';
import { grid } from './grid.ts';

export type SimilarMatch = Schemas['SimilarResult']['similar'][number];
export type RobustMatch = NonNullable<Schemas['SimilarResult']['robust']>[number];

const TRANSFORM_WORDS: Record<string, string> = {
  none: 'same orientation',
  mirror: 'mirrored',
  rotate90: 'rotated 90°',
  rotate180: 'rotated 180°',
  rotate270: 'rotated 270°',
  mirrorRotate90: 'mirrored and rotated 90°',
  mirrorRotate180: 'mirrored and rotated 180°',
  mirrorRotate270: 'mirrored and rotated 270°',
};

export function transformWords(t: string | undefined): string {
  if (!t) return '';
  return TRANSFORM_WORDS[t] ?? t.replace(/([a-z])([A-Z0-9])/g, '$1 $2').toLowerCase();
}

export async function findSimilar(image: Blob, name: string, maxDiff = 8): Promise<SimilarMatch[]> {
  const result = await ok(
    api.POST('/api/post/similar', {
      params: { query: { transforms: 'dihedral', maxDiff, limit: 24 } },
      body: { image: name },
      bodySerializer: () => {
        const form = new FormData();
        form.append('image', image, name);
        return form;
      },
    }),
  );
  return result.similar;
}

export function similarGrid(matches: SimilarMatch[], label: string): HTMLElement {
  return grid(
    matches.map((m) => {
      const how = transformWords(m.transform);
      const caption = `${m.diff} ${m.diff === 1 ? 'bit' : 'bits'} apart${how && m.transform !== 'none' ? `, ${how}` : ''}`;
      return {
        href: `/post/${m.id}`,
        thumbnail: thumbnailOf(m.imageURL, m.id),
        alt: `Similar post ${m.id.slice(0, 8)}, ${caption}`,
        caption,
      };
    }),
    label,
  );
}

export const noMatches = () => h('p', { class: 'empty' }, 'No similar images found.');

/** How a robust match relates to the picture asked about (docs/decisions.md §16's `kind`). */
const KIND_WORDS: Record<RobustMatch['kind'], string> = {
  similar: 'same picture',
  crop: 'cropped',
  border: 'with borders',
  overlay: 'with something added',
  frames: 'a frame of it',
};

/**
 * The robust matches of a picture chosen for upload (POST /api/post/similar?robust=1): possible duplicates the 409 does
 * not catch.
 */
export async function findPossibleDuplicates(
  image: Blob,
  name: string,
): Promise<{ similar: SimilarMatch[]; robust: RobustMatch[] }> {
  const result = await ok(
    api.POST('/api/post/similar', {
      params: { query: { robust: '1', limit: 12 } },
      body: { image: name },
      bodySerializer: () => {
        const form = new FormData();
        form.append('image', image, name);
        return form;
      },
    }),
  );
  return { similar: result.similar, robust: result.robust ?? [] };
}

/**
 * A stored post's similar images, mirrored and rotated copies too, and its robust matches, in one request
 * (GET /api/post/{id}/similar?transforms=dihedral&robust=1): the server looks up the post's stored hashes
 * (docs/decisions.md §24), so the page never downloads the picture to send it back.
 */
export async function postSimilar(id: string): Promise<{ similar: SimilarMatch[]; robust: RobustMatch[] }> {
  const result = await ok(
    api.GET('/api/post/{id}/similar', {
      params: { path: { id }, query: { transforms: 'dihedral', robust: '1', limit: 24 } },
    }),
  );
  return { similar: result.similar, robust: result.robust ?? [] };
}

export function robustGrid(matches: RobustMatch[], label: string): HTMLElement {
  return grid(
    matches.map((m) => {
      const caption = `${Math.round(m.score * 100)} % alike, ${KIND_WORDS[m.kind] ?? m.kind}`;
      return {
        href: `/post/${m.id}`,
        thumbnail: thumbnailOf(m.imageURL, m.id),
        alt: `Possible duplicate, post ${m.id.slice(0, 8)}: ${caption}`,
        caption,
      };
    }),
    label,
  );
}
