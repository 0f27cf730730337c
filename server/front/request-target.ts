// A request's target as the site reads it. HTTP/1.1 lets a client send the absolute form
// (`GET http://host/path HTTP/1.1`, RFC 9112 §3.2.2), which a server must take: its path is the path, and
// its authority replaces the Host header (§3.2.2: "the server MUST ignore the received Host header").

/** The origin form of an absolute-form `target` (`/path?query`) and its authority, or null for any other form. */
export function fromAbsoluteForm(target: string): { path: string; host: string } | null {
  if (!/^https?:\/\//i.test(target)) return null;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null; // not a URL: read as a path, refused there with what was wrong
  }
  return { path: url.pathname + url.search, host: url.host };
}
