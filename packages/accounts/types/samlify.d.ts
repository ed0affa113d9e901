/**
 * Stands in for samlify's own types (reached through `@better-auth/sso`): they import `@xmldom/xmldom` 0.8, whose
 * types add the DOM library to every file of the program, and with it DOM's `fetch` types in place of Node's.
 * Formgate offers OpenID Connect providers only and never calls samlify itself.
 */
declare const samlify: Record<string, unknown>;
export default samlify;
