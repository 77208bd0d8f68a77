/// The flow `rocket demo` plays: a tour of every block type, timers, branching, validation,
/// interpolation, a secret input and a named action.
enum DemoFlow {
    static let json = #"""
{
  "version": 1,
  "title": "RocketAlert tour",
  "author": {"name": "Rocket", "style": "circular"},
  "closeButton": {"title": "Close"},
  "start": "hello",
  "blocks": [
    {"id": "hello", "type": "text", "text": "🚀", "font": "emoji", "next": "intro", "showNextAfter": 0.6},
    {"id": "intro", "type": "text", "text": "Hi! I'm Rocket, a chat-style alert. I show one block at a time; the newest one is the one you can use.", "next": "timer"},
    {"id": "timer", "type": "text", "text": "This block goes on by itself after a short delay (showNextAfter)…", "showNextAfter": 1.2, "next": "picture"},
    {"id": "picture", "type": "image", "image": "rocket-logo.png", "text": "Image blocks show a picture with a caption.", "imageStyle": "round", "next": "ask"},
    {"id": "ask", "type": "doubleButton",
     "left": {"title": "Sure", "next": "name"},
     "right": {"title": "Not now", "next": "later", "font": "lightButton"}},
    {"id": "later", "type": "text", "text": "No problem. Tap to finish.", "font": "textBold"},
    {"id": "name", "type": "textInput", "text": "What's your name? (no digits, please)", "buttonTitle": "Send", "placeholder": "Your name",
     "validate": {"required": true, "maxLength": 40, "pattern": "^[^0-9]*$", "message": "No digits, please"},
     "branches": [{"when": {"equals": "SecretKey"}, "next": "secret"}, {"when": {"matches": "(?i)^ada"}, "next": "ada"}],
     "next": "thanks"},
    {"id": "secret", "type": "text", "text": "Awesome!! you know the secret key", "next": "pin"},
    {"id": "ada", "type": "text", "text": "Countess {{name}}! Welcome back.", "next": "pin"},
    {"id": "thanks", "type": "text", "text": "Thanks, {{name}}!", "next": "pin"},
    {"id": "pin", "type": "textInput", "text": "Pick a 4-digit PIN (it stays masked and never reaches any log).", "buttonTitle": "OK",
     "secret": true, "validate": {"pattern": "^[0-9]{4}$", "message": "Four digits, please"}, "next": "notify"},
    {"id": "notify", "type": "button", "title": "Enable notifications", "action": "enable-notifications", "next": "done"},
    {"id": "done", "type": "text", "text": "All set, {{name}}. That was every block type. Tap to finish.", "font": "textBold"}
  ]
}
"""#
}
