import { PERMISSION, currentUser, requirePermission } from '../accounts/permissions.ts';
import { AppError } from '../errors.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext } from '../http/context.ts';
import {
  always,
  error,
  forbidden,
  issues,
  json,
  limited,
  postId,
  postNotFound,
  type Feature,
} from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import { NOTE_ID, NewNote, Note, NoteChange, NoteHistory, NoteList, NoteRevert } from './schemas.ts';
import type { NoteService } from './service.ts';

function noteId(ctx: AppContext): number {
  if (!NOTE_ID.test(ctx.params.id)) throw new AppError('not_found', 'note not found');
  return Number(ctx.params.id);
}

const noteIdParam = z.object({ id: z.string().openapi({ description: "the note's number" }) });
const noteNotFound = error('no note with this number');
const outside = 'a box not inside the image, an empty body or one over 10,000 characters, or not the schema';

/** Notes over a post's image (docs/decisions.md §23): everyone reads; 0x4 writes. */
export const notesFeature: Feature<{ notes: NoteService }> = {
  name: 'notes',
  endpoints: [
    {
      method: 'get',
      path: '/api/post/{id}/note',
      operationId: 'listNotes',
      tag: 'posts',
      summary: "A post's notes, oldest first",
      request: { params: postId },
      responses: { ...always, 200: { description: 'its notes', schema: NoteList }, 404: postNotFound },
      handle: ({ notes }) => [
        (ctx) => {
          ctx.body = notes.ofPost(ctx.params.id);
        },
      ],
    },
    {
      method: 'post',
      path: '/api/post/{id}/note',
      operationId: 'addNote',
      tag: 'posts',
      auth: true,
      summary: "Put a note on a post's image (0x4): a box in the image's pixels",
      request: { params: postId, body: { required: true, ...json(NewNote) } },
      responses: {
        ...always,
        ...limited,
        201: { description: 'the note', schema: Note },
        400: issues(outside),
        403: forbidden,
        404: postNotFound,
      },
      handle: ({ notes }) => [
        requirePermission(PERMISSION.editPost),
        jsonBody(),
        async (ctx) => {
          const { body, ...box } = parse(NewNote, requestBody(ctx));
          ctx.body = await notes.add(currentUser(ctx).id, ctx.params.id, box, body);
          ctx.status = 201;
        },
      ],
    },
    {
      method: 'patch',
      path: '/api/note/{id}',
      operationId: 'editNote',
      tag: 'posts',
      auth: true,
      summary: 'Move, resize or rewrite a note (0x4), optimistically by `version`',
      request: { params: noteIdParam, body: { required: true, ...json(NoteChange) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the note', schema: Note },
        400: issues(outside),
        403: forbidden,
        404: noteNotFound,
        409: error('`version` is not the current one; the message names the current version'),
      },
      handle: ({ notes }) => [
        requirePermission(PERMISSION.editPost),
        jsonBody(),
        async (ctx) => {
          const id = noteId(ctx);
          ctx.body = await notes.change(currentUser(ctx).id, id, parse(NoteChange, requestBody(ctx)));
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/note/{id}',
      operationId: 'deleteNote',
      tag: 'posts',
      auth: true,
      summary: 'Delete a note (0x4)',
      request: { params: noteIdParam },
      responses: { ...always, ...limited, 204: { description: 'deleted' }, 403: forbidden, 404: noteNotFound },
      handle: ({ notes }) => [
        requirePermission(PERMISSION.editPost),
        async (ctx) => {
          await notes.remove(noteId(ctx));
          ctx.status = 204;
        },
      ],
    },
    {
      method: 'get',
      path: '/api/note/{id}/history',
      operationId: 'noteHistory',
      tag: 'posts',
      summary: "A note's versions, newest first",
      request: { params: noteIdParam },
      responses: { ...always, 200: { description: 'its versions', schema: NoteHistory }, 404: noteNotFound },
      handle: ({ notes }) => [
        (ctx) => {
          ctx.body = notes.history(noteId(ctx));
        },
      ],
    },
    {
      method: 'post',
      path: '/api/note/{id}/revert',
      operationId: 'revertNote',
      tag: 'posts',
      auth: true,
      summary: "Make an earlier version the note's box and body again, as a new version (0x4)",
      request: { params: noteIdParam, body: { required: true, ...json(NoteRevert) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the note', schema: Note },
        400: issues('not the schema, or the old box lies outside the image'),
        403: forbidden,
        404: error('no such note, or no such version of it'),
      },
      handle: ({ notes }) => [
        requirePermission(PERMISSION.editPost),
        jsonBody(),
        async (ctx) => {
          const id = noteId(ctx);
          ctx.body = await notes.revert(currentUser(ctx).id, id, parse(NoteRevert, requestBody(ctx)).version);
        },
      ],
    },
  ],
};
