import type { MediaStore } from './media-store.ts';
import type { MediaStoreStates } from './store-state.ts';

/**
 * The stores a media operation uses: writes go to `active`; while a migration copies, reads fall back to `previous`.
 */
export interface CurrentStores {
  active: MediaStore;
  previous?: MediaStore;
}

/**
 * Which media store is in use, read from the `media_store` row (written by `imgpost media migrate`)
 * on every call, else MEDIA_STORE's. A live server thus follows a migration's switch at its next
 * operation, without a restart or a signal: one indexed SQLite read per call, no store request.
 * Stores are opened once per name and kept.
 */
export class MediaStores {
  private readonly opened = new Map<string, MediaStore>();

  constructor(
    private readonly states: Pick<MediaStoreStates, 'inUse'>,
    /** MEDIA_STORE's name (`local` or `s3://bucket/prefix/`): the store in use while no migration ever ran */
    readonly configured: string,
    private readonly open: (name: string) => MediaStore,
  ) {}

  /** The name of the store writes go to. */
  activeName(): string {
    return this.states.inUse()?.active ?? this.configured;
  }

  current(): CurrentStores {
    const state = this.states.inUse();
    if (!state) return { active: this.byName(this.configured) };
    return {
      active: this.byName(state.active),
      previous: state.migratingFrom === null ? undefined : this.byName(state.migratingFrom),
    };
  }

  byName(name: string): MediaStore {
    let store = this.opened.get(name);
    if (!store) this.opened.set(name, (store = this.open(name)));
    return store;
  }

  close(): void {
    for (const store of this.opened.values()) store.close();
    this.opened.clear();
  }
}
