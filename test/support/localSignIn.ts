import { LocalLogin } from '../../functions/src/local/localLogin';
import type { OperatorAuthenticator } from '../../functions/src/dashboard/authenticator';

/** As `npm start` does: plug the local one-time sign-in into the operator gate; returns the link's token. */
export function enableLocalLogin(operators: OperatorAuthenticator, onNewLink?: (loginToken: string) => void): string {
  const login = new LocalLogin(onNewLink);
  operators.allowLocalSignIn(login);
  return login.loginToken;
}
