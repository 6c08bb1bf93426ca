/**
 * The derived copies of each photograph (issue 25). Deterministic: fixed parameters; the side a
 * one-sided crop takes off rotates with the photograph's index so all four sides are exercised.
 */
import sharp, { type Sharp } from 'sharp';

export interface Transform {
  name: string;
  /** the recall goal the issue sets for it (0.95, 0.8), or undefined: reported only */
  goal?: number;
  ext?: 'png' | 'jpg';
  apply(origPath: string, index: number): Promise<Buffer>;
}

const SIDES = ['left', 'top', 'right', 'bottom'] as const;

async function size(path: string): Promise<{ w: number; h: number }> {
  const m = await sharp(path).metadata();
  return { w: m.width!, h: m.height! };
}

const png = (s: Sharp) => s.png({ compressionLevel: 1 }).toBuffer();

function cropSide(p: number): Transform['apply'] {
  return async (path, index) => {
    const { w, h } = await size(path);
    const side = SIDES[index % 4];
    const cw = side === 'left' || side === 'right' ? Math.round(w * (1 - p)) : w;
    const ch = side === 'top' || side === 'bottom' ? Math.round(h * (1 - p)) : h;
    const left = side === 'left' ? w - cw : 0;
    const top = side === 'top' ? h - ch : 0;
    return png(sharp(path).extract({ left, top, width: cw, height: ch }));
  };
}

/** keeps the central (1 - p) of each dimension */
function cropCentre(p: number): Transform['apply'] {
  return async (path) => {
    const { w, h } = await size(path);
    const cw = Math.round(w * (1 - p));
    const ch = Math.round(h * (1 - p));
    return png(
      sharp(path).extract({ left: Math.floor((w - cw) / 2), top: Math.floor((h - ch) / 2), width: cw, height: ch }),
    );
  };
}

/** a border of 10 % of the width (left/right) and of the height (top/bottom) on every side */
function border(colour: string): Transform['apply'] {
  return async (path) => {
    const { w, h } = await size(path);
    const x = Math.round(w * 0.1);
    const y = Math.round(h * 0.1);
    return png(sharp(path).extend({ left: x, right: x, top: y, bottom: y, background: colour }));
  };
}

/** black bars to a 4:3 frame (wide pictures) or a 16:9 frame (the others) */
const letterbox: Transform['apply'] = async (path) => {
  const { w, h } = await size(path);
  if (w / h > 1.4) {
    const bar = Math.round((w * 3) / 4 - h) / 2;
    return png(
      sharp(path).extend({ top: Math.floor(bar), bottom: Math.ceil(bar), left: 0, right: 0, background: '#000' }),
    );
  }
  const bar = Math.max(0, Math.round((h * 16) / 9 - w) / 2);
  return png(
    sharp(path).extend({ left: Math.floor(bar), right: Math.ceil(bar), top: 0, bottom: 0, background: '#000' }),
  );
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** a white band above the picture, 18 % of its height, with a meme-style black caption */
const caption: Transform['apply'] = async (path) => {
  const { w, h } = await size(path);
  const band = Math.round(h * 0.18);
  const text = await sharp({
    text: {
      text: `<span foreground="black">${esc('WHEN THE TESTS PASS ON THE FIRST TRY')}</span>`,
      font: 'sans bold',
      width: Math.round(w * 0.92),
      height: Math.round(band * 0.7),
      rgba: true,
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
  return png(
    sharp(path)
      .extend({ top: band, bottom: 0, left: 0, right: 0, background: '#fff' })
      .composite([
        {
          input: text.data,
          left: Math.max(0, Math.round((w - text.info.width) / 2)),
          top: Math.max(0, Math.round((band - text.info.height) / 2)),
        },
      ]),
  );
};

/** white text at 45 % opacity across the middle third, with a dark outline like a stock watermark */
const watermark: Transform['apply'] = async (path) => {
  const { w, h } = await size(path);
  const fs = Math.round(Math.min(w, h) * 0.12);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <text x="50%" y="55%" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="${fs}"
      fill="#ffffff" fill-opacity="0.45" stroke="#000000" stroke-opacity="0.3" stroke-width="${Math.max(1, fs / 30)}"
      transform="rotate(-20 ${w / 2} ${h / 2})">© imgpost stock</text></svg>`;
  return png(sharp(path).composite([{ input: Buffer.from(svg), left: 0, top: 0 }]));
};

function rescale(f: number): Transform['apply'] {
  return async (path) => {
    const { w, h } = await size(path);
    return png(sharp(path).resize(Math.max(1, Math.round(w * f)), Math.max(1, Math.round(h * f)), { fit: 'fill' }));
  };
}

export const TRANSFORMS: Transform[] = [
  { name: 'crop5-side', goal: 0.95, apply: cropSide(0.05) },
  { name: 'crop10-side', goal: 0.95, apply: cropSide(0.1) },
  { name: 'crop20-side', goal: 0.8, apply: cropSide(0.2) },
  { name: 'crop5-centre', goal: 0.95, apply: cropCentre(0.05) },
  { name: 'crop10-centre', goal: 0.95, apply: cropCentre(0.1) },
  { name: 'crop20-centre', goal: 0.8, apply: cropCentre(0.2) },
  { name: 'border-black', goal: 0.95, apply: border('#000') },
  { name: 'border-white', goal: 0.95, apply: border('#fff') },
  { name: 'letterbox', goal: 0.95, apply: letterbox },
  { name: 'caption', goal: 0.95, apply: caption },
  { name: 'watermark', goal: 0.95, apply: watermark },
  { name: 'scale25', goal: 0.95, apply: rescale(0.25) },
  { name: 'scale200', goal: 0.95, apply: rescale(2) },
  { name: 'jpeg20', goal: 0.95, ext: 'jpg', apply: (p) => sharp(p).jpeg({ quality: 20 }).toBuffer() },
  { name: 'brighter', goal: 0.95, apply: (p) => png(sharp(p).modulate({ brightness: 1.3 })) },
  { name: 'darker', goal: 0.95, apply: (p) => png(sharp(p).modulate({ brightness: 0.7 })) },
  { name: 'contrast', goal: 0.95, apply: (p) => png(sharp(p).linear(1.4, -0.4 * 128)) },
  { name: 'greyscale', apply: (p) => png(sharp(p).greyscale()) },
  { name: 'mirror', apply: (p) => png(sharp(p).flop()) },
];
