/** The owner's pages that others link or redirect to. */
export const HOME_PATH = '/containers';
export const SIGN_IN_PATH = '/sign-in';
export const CONNECTED_APPS_PATH = '/connected-apps';
export const IMPORT_PATH = '/import';

/** Where to send someone who must sign in first, coming back to `next` afterwards. */
export const signInUrl = (next: string): string => `${SIGN_IN_PATH}?${new URLSearchParams({ next })}`;
