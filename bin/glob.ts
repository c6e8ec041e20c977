/** Matches scenario ids against globs: `*` within one segment, `**` across segments. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === '*') {
      if (glob.charAt(i + 1) === '*') {
        out += '.*';
        i++;
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** A glob names an id, or a folder the id is in (`refunds` names `refunds/full-refund`). */
function names(glob: string, id: string): boolean {
  return globToRegExp(glob).test(id) || globToRegExp(`${glob}/**`).test(id);
}

/**
 * Whether `id` is selected by `globs`: by any glob that does not start with `!` (every id when
 * there is none), and by no `!glob` — `'!tau-retail/*'` leaves the τ-bench tasks out.
 */
export function matchesAny(id: string, globs: readonly string[]): boolean {
  const excluded = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  const included = globs.filter((g) => !g.startsWith('!'));
  return (
    (included.length === 0 || included.some((g) => names(g, id))) &&
    !excluded.some((g) => names(g, id))
  );
}
