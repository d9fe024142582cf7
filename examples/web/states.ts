import { defineStates } from '../../src/integrations/web/index.js';

/**
 * The restaurant app's states and actions, declared in code. `states.json` is this
 * declaration written out (`JSON.stringify(restaurantStates)`), for `intentguard
 * formalize --states` and `intentguard check`; a test keeps the two equal.
 */
export const restaurantStates = defineStates({
  RestaurantInfo: {
    description: 'The restaurant opened from the search results.',
    variables: [{ name: 'name', type: 'Text' }],
  },
  ReserveInfo: {
    description: 'Reservation details selected on the booking form.',
    variables: [
      { name: 'date', type: 'Date' },
      { name: 'time', type: 'Time' },
      { name: 'party', type: 'Number', description: 'How many people.' },
      {
        name: 'available',
        type: 'Boolean',
        observed: true,
        description: 'Whether the slot is free.',
      },
    ],
  },
  ReserveResult: {
    description: 'The outcome shown after pressing Reserve, with the deposit the restaurant asks.',
    observed: true,
    variables: [
      { name: 'success', type: 'Boolean' },
      { name: 'deposit', type: 'Number' },
    ],
  },
  PaymentResult: {
    description: 'The outcome of the deposit payment.',
    observed: true,
    variables: [
      { name: 'success', type: 'Boolean' },
      { name: 'amount', type: 'Number' },
    ],
  },
  OpenRestaurant: {
    kind: 'action',
    description: 'Opens a restaurant from the search results.',
    variables: [],
  },
  EditReservation: {
    kind: 'action',
    description: 'Changes a field of the booking form.',
    variables: [],
  },
  Reserve: {
    kind: 'action',
    description: 'Presses Reserve on the booking form.',
    variables: [],
  },
  PayDeposit: {
    kind: 'action',
    critical: true,
    description: 'Pays the deposit with the stored card.',
    variables: [{ name: 'amount', type: 'Number' }],
  },
});
