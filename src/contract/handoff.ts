/**
 * The words both ends of the extension's sign-in handoff spell alike. The handoff ends on the
 * extension's callback address with a fragment: `#token=<url-encoded token>` when a token was
 * minted, `#error=access_denied` when the user pressed Cancel on the consent page. Plain values,
 * no schema: the extension bundles this module.
 */
export const HANDOFF_TOKEN_PARAM = "token";
export const HANDOFF_ERROR_PARAM = "error";
export const HANDOFF_DENIED = "access_denied";
