/** Similar images (POST /api/post/similar?transforms=dihedral, decisions §11) as a grid with distances. */
import { api, ok, thumbnailOf, type Schemas } from './api.ts';
import { h } from './dom.ts';
import { grid } from './grid.ts';

export type SimilarMatch = Schemas['SimilarResult']['similar'][number];

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
      return { href: `/post/${m.id}`, thumbnail: thumbnailOf(m.imageURL, m.id), alt: `Similar post ${m.id.slice(0, 8)}, ${caption}`, caption };
    }),
    label,
  );
}

export const noMatches = () => h('p', { class: 'empty' }, 'No similar images found.');
