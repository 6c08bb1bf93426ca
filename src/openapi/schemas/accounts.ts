/** The caller's account: declared in the accounts feature (src/accounts/account-shapes.ts). */
export { User } from '../../kernel/shapes.ts';
export { AccessKey, LoginFailure, Self } from '../../accounts/account-shapes.ts';
