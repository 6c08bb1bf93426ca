/**
 * Who favorited, commented on and voted on posts, as the kernel reads it. A post's favoriters and
 * commenters are part of its record (the search document's `favorited_by` and `commented_by`), and a
 * user's removal changes the documents of every post they touched; but the tables are the features'
 * (src/favorites, src/comments, src/votes), so the kernel is handed these readers, as it is `UserNames`,
 * instead of owning SQL on tables that are not its own.
 */
export interface Favoriters {
  /** the users who favorited each of `seqs` */
  favoritersOf(seqs: readonly number[]): Map<number, number[]>;
  /** the posts a user favorited */
  seqsFavoritedBy(userId: number): number[];
}

export interface Commenters {
  /** the users who commented on each of `seqs` */
  commentersOf(seqs: readonly number[]): Map<number, number[]>;
  /** the posts a user commented on */
  seqsCommentedBy(userId: number): number[];
}

export interface Voters {
  /** the posts a user voted on */
  seqsVotedBy(userId: number): number[];
}

/** The three readers a PostRepository is built with. */
export interface PostPeople {
  favorites: Favoriters;
  comments: Commenters;
  votes: Voters;
}
