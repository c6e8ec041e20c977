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

export function matchesAny(id: string, globs: readonly string[]): boolean {
  return (
    globs.length === 0 ||
    globs.some((g) => globToRegExp(g).test(id) || globToRegExp(`${g}/**`).test(id))
  );
}
