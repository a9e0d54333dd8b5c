/**
 * The region every function is deployed to: `TESSERA_REGION`, which the Firebase CLI loads from
 * `functions/.env` at deploy and at run time. Hosting rewrites in firebase.json name the same
 * region (a test holds them together). Missing at deploy is an error, never a silent default.
 */
export function deployRegion(): string {
  const region = process.env.TESSERA_REGION;
  if (!region) throw new Error('TESSERA_REGION is not set: it belongs in functions/.env, which the Firebase CLI loads at deploy.');
  return region;
}
