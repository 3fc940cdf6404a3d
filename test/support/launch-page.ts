/**
 * A line of sh for a stand-in browser (VCONSOLE_BROWSER): sets `u` to the address it is sent to.
 * vconsole hands a browser a private launch page (file://...open.html), never the one-time
 * address itself (src/viewers/browser/launch-page.ts); a browser follows the page's link. Shell
 * builtins only: some tests run vconsole with PATH=/nonexistent.
 */
export const FOLLOW_LAUNCH_PAGE_SH = `u="$1"; case "$u" in file://*) while IFS= read -r l; do case "$l" in *'<a href="'*) l=\${l#*'<a href="'}; u=\${l%%'"'*};; esac; done < "\${u#file://}";; esac`;
