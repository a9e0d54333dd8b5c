import type { Env } from './api';
import { href, type Page } from './router';

/** What every page is given: the project, the environment (explicit in every call) and the operator's role. */
export interface PageProps {
  projectId: string;
  env: Env;
  args: string[];
  canChange: boolean;
}

export const linkTo = (props: Pick<PageProps, 'projectId' | 'env'>, page: Page, ...args: string[]): string => href({ projectId: props.projectId, env: props.env, page, args });
