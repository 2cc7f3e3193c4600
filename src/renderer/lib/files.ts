// Exporting files without a server round trip (importing is a plain file input).
export function downloadText(fileName: string, text: string, type = 'application/json'): void {
  download(fileName, new Blob([text], { type }));
}

/** A binary file the contract carried as base64 (an HCI trace). */
export function downloadBase64(
  fileName: string,
  base64: string,
  type = 'application/octet-stream',
): void {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  download(fileName, new Blob([bytes], { type }));
}

function download(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoke later: some browsers start the download only after the click handler returns.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
