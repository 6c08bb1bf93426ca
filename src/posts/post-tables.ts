import type { Db } from '../db/sqlite.ts';
import type { PostPeople } from '../kernel/post-people.ts';
import type { UserNames } from '../kernel/user-names.ts';
import { PostRepository } from '../kernel/post-repository.ts';
import { CommentRepository } from '../comments/comment-repository.ts';
import { FavoriteRepository } from '../favorites/favorite-repository.ts';
import { VoteRepository } from '../votes/vote-repository.ts';

/** The features' tables whose readers a PostRepository is built with (src/kernel/post-people.ts). */
export interface PostPeopleTables extends PostPeople {
  favorites: FavoriteRepository;
  comments: CommentRepository;
  votes: VoteRepository;
}

export function postPeopleOn(db: Db): PostPeopleTables {
  return { favorites: new FavoriteRepository(db), comments: new CommentRepository(db), votes: new VoteRepository(db) };
}

/** The post tables on `db`, for callers that need only them (backups, the seeder, tests). */
export function postRepositoryOn(db: Db, users: UserNames): PostRepository {
  return new PostRepository(db, users, postPeopleOn(db));
}
