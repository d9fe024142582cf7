/**
 * The user's task as a spec (`spec.intent`, inlined so that the page needs no fetch; a
 * test keeps the two equal). In a product the spec comes from `intentguard formalize`
 * on the user's words, on the server.
 */
export const specText = `# Book a table for 2 at restaurant R before 7 PM today, and pay the deposit it asks for.
R1: RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, party = 2, available = true) & Reserve -> Reserved
@confirm(financial, "Confirm the deposit payment with the user")
R2: Reserved & ReserveResult(success = true, deposit = 20) & PayDeposit(amount = 20) -> Paid
R3: Paid & PaymentResult(success = true) -> Done
reject PayDeposit(amount > 20) because "never pay more than the deposit the restaurant asks for"
`;
