//! The one event enum: everything that reaches the console's loop from outside `App::update` —
//! terminal input, effect results, review progress, signals — over one tokio channel. A new
//! background source sends its results as an [`Action`] (or adds a variant here).

use ratatui::crossterm::event::Event;

use super::app::Action;
use crate::review::ReviewEvent;

#[derive(Debug)]
pub enum AppEvent {
    Input(Event),
    /// The result of an effect (a marker write, a post, …) as an action for `update`.
    Action(Action),
    /// SIGINT or SIGTERM: leave cleanly.
    Terminate(&'static str),
    /// Progress of review run `seq`, for the screen that started it.
    Review {
        screen: super::app::ScreenId,
        seq: u64,
        event: ReviewEvent,
    },
}

impl AppEvent {
    /// The action for an event that is not terminal input or a signal.
    pub fn into_action(self) -> Option<Action> {
        match self {
            AppEvent::Action(a) => Some(a),
            AppEvent::Review { screen, seq, event } => Some(Action::For {
                screen,
                action: Box::new(Action::Review { seq, event }),
            }),
            AppEvent::Input(_) | AppEvent::Terminate(_) => None,
        }
    }
}
