import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Which ffmpeg and ffprobe run (docs/decisions.md §21, docs/operations/ffmpeg.md): the settings
 * `FFMPEG_PATH`/`FFPROBE_PATH`, else the system's on `PATH` (a distribution keeps it patched), else
 * the builds the npm packages ship, so that `npm ci && npm start` works on a bare machine.
 */
export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
  /** where they were found: named by a setting, on PATH, or the npm packages' builds */
  source: 'setting' | 'system' | 'npm';
}

function onPath(name: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: the next directory
    }
  }
  return undefined;
}

function fromNpm(pkg: '@ffmpeg-installer/ffmpeg' | '@ffprobe-installer/ffprobe'): string | undefined {
  try {
    const found = createRequire(import.meta.url)(pkg) as { path?: string };
    return found.path;
  } catch {
    // the package has no build for this platform
    return undefined;
  }
}

export function locateFfmpeg(
  settings: { ffmpegPath?: string | undefined; ffprobePath?: string | undefined },
  /** the `PATH` to search (the caller's configuration reads the environment) */
  searchPath: string | undefined,
): FfmpegTools {
  if (settings.ffmpegPath || settings.ffprobePath) {
    return {
      ffmpeg: settings.ffmpegPath ?? onPath('ffmpeg', searchPath) ?? fromNpm('@ffmpeg-installer/ffmpeg') ?? 'ffmpeg',
      ffprobe:
        settings.ffprobePath ?? onPath('ffprobe', searchPath) ?? fromNpm('@ffprobe-installer/ffprobe') ?? 'ffprobe',
      source: 'setting',
    };
  }
  const ffmpeg = onPath('ffmpeg', searchPath);
  const ffprobe = onPath('ffprobe', searchPath);
  if (ffmpeg && ffprobe) return { ffmpeg, ffprobe, source: 'system' };
  const npmFfmpeg = fromNpm('@ffmpeg-installer/ffmpeg');
  const npmFfprobe = fromNpm('@ffprobe-installer/ffprobe');
  if (npmFfmpeg && npmFfprobe) return { ffmpeg: npmFfmpeg, ffprobe: npmFfprobe, source: 'npm' };
  return { ffmpeg: ffmpeg ?? 'ffmpeg', ffprobe: ffprobe ?? 'ffprobe', source: 'system' };
}
