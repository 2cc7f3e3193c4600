// A run's failure said short, its full words (the board's reason, the step it happened under)
// one click away behind "Details" (issue 45, point 3).
export function FailureWords({ message, details }: { message: string; details?: string }) {
  if (!details) return <>{message}</>;
  return (
    <>
      {message}
      <details className="failure-details">
        <summary>Details</summary>
        {details}
      </details>
    </>
  );
}
