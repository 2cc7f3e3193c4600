// Copying ids to the clipboard. The async Clipboard API can be refused (no permission, not a
// secure context, window without focus), so fall back to the selection-based copy.
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return copyWithSelection(text);
  }
}

function copyWithSelection(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  try {
    // Deprecated but still the only synchronous fallback browsers honour.
    return document.execCommand('copy');
  } finally {
    area.remove();
  }
}
