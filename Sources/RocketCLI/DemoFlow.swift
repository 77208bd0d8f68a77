/// The flow `rocket demo` plays: a tour of every block type, timers, branching, validation,
/// interpolation, a secret input and a named action.
enum DemoFlow {
    static let json = #"""
        {
          "version": 1,
          "title": "RocketAlert tour",
          "author": {"name": "Rocket", "style": "circular", "image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAYAAABXAvmHAAACXklEQVR42u2a3UsVQRiHz19Sah/mOZ4P75UoJBEjlFCiSE2MMEIRJQpRpIj8N4wiMZKKokgUQ0MxCsUiKQqlW2/PTTc/2QO7O+7uzLwzO/txcQaem9097/v8OB97ZmYzmepwx7GWWVBIl/TZJwhDYuLHzz2FSeITP/8MURKZeE3rc8SJWfkLc0gCM/Jt80iSUPK17S+QBvTkO14iTSjJ111cQBqhB7j0CmmEJH+i8zXSjDxA1xtEzUHvjUAorxXLX36LKOGJOwGIdbgBTna/Q1SUy/8riAJQawXL97xHFNjiLNwACnV9AU5d+QDTBMmLQqjU9ge4+hEmEcnzQqjUPyp/bREmoch7Q+j0cQKcvr4EU6jIsyF0erkB+pZhAh15C91+ToD6/hWERVc+TE83wMAnULE/s+wxXflKAIXeXpwAZwZXQcH7q2EdCyNP7cvDDXBzDTJ4Nx9teUJPGW6AW58hwri8pB8VJ0DD0DpEmJSX9VLBDXB7AzJMBKD0UeHI3Th7ZxMywshT6qvg+y+UHf4CCjoBqLVV8AcY+QoKWG5WkyfWVSVwTpAb/QYZ1ADWO0WppwN3RpYb24IIS54SgP2yy2rqIJwXN45vg4csAO9+IaqpinRVovHuDoKw5YOQTdZ5NXUgrQ3l732HlyBx9jxPPqiWLuSVufz9H2DxiXvO2/jkOdfporQ+mp/4CRtHnDnGw5EnXKuC1gp1YXIXaSDUHkFh6heSxMguTXH6N5LA6D5Z8cEfxElku5XFh38RJbHtF5ce7cEkie3Ylx7vIwypem6iaeYfKFQfi2HGIceDcEuHOyHqAAAAAElFTkSuQmCC"},
          "closeButton": {"title": "Close"},
          "banner": {"title": "Welcome to the RocketAlert tour", "icon": "🚀", "color": "ink", "duration": 8, "animation": "drop",
                     "subtitle": "Banners like this one come from MPGNotification; this one goes by itself."},
          "vars": {"longName": false},
          "start": "hello",
          "blocks": [
            {"id": "hello", "type": "text", "text": "🚀", "font": "emoji", "next": "intro", "showNextAfter": 0.6},
            {"id": "intro", "type": "text", "text": "Hi! I'm Rocket, a chat-style alert. I show one block at a time; the newest one is the one you can use.", "next": "timer"},
            {"id": "timer", "type": "text", "text": "This block goes on by itself after a short delay (showNextAfter)…", "showNextAfter": 1.2, "next": "picture"},
            {"id": "picture", "type": "image", "image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAYAAABXAvmHAAACEElEQVR42tXX0UtTcRQH8O9fMqdzOqdz+q5EEUUUUkgRRaZSRBFFFFFEEoUk/hUZRVEkFoVRKIpFURRFRVEURT326ksv35iwcZm7u+ecezc4D5+Xux/n+z1s916G1MA1eobU4Aw9Q2rDdXqGlo036BlaNt2kZ0hvvkXPkN5ym54hvfUOPUPrtrv0DK3b79EztO2YpWdoG5qjZ8jsvE/PkNn1gM32d2SsJsssZIYfslnCilcWMMxE++5HbIbV1X9r6i1gmYv2PfNspHLxoNAFDPOR3fuYjVKrfL0lLBnI7nvCRqhXPmwJSw6y+58yaZLy1UtYs9BxYIFJ0pQPLmHNQ8fBRSbFUr4kTiY6R5eYBGv5uLnoHF+mRvk3G7xmLb+2gDK/GnKHVihV/dQoXYtTXpMdBrnDzygR9vIxlxfmRkHuyHNGSby8IFMKXUdfMEqS5SV5Gug69pISSSwgzdJA/vgrSsUpr8nRQP7Ea2pYFtBmaCB/8g01uDigK6+cr4XuU2+pIV2g9E1pZ1ug+/Q7SpXKSxYI3uya+RboOfOeUlELhL0vNBla6Dn7gRLl8rVE/VmXZligcO4jJWoVD34eVl463wqF858YZV3xkHPrygtmx4XChc+MUikuOFspLzibBPRe/ELP0DvxlZ6heOkbPUPx8nd6huKVH/QMfZM/6Rn6rv6iZ+if+k3P0D/9h579B6giLCM2Ho4vAAAAAElFTkSuQmCC", "text": "Image blocks show a picture with a caption; its corners are round here (or square, or a circle).", "imageStyle": "round", "next": "ask"},
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
             "secret": true, "validate": {"pattern": "^[0-9]{4}$", "message": "Four digits, please"}, "next": "count"},
            {"id": "count", "type": "set", "set": {"longName": "length(name) > 12"}, "next": "check"},
            {"id": "check", "type": "condition", "branches": [{"if": "longName", "next": "long"}], "else": "notify"},
            {"id": "long", "type": "text", "text": "Set and condition blocks work with variables: what a long name, {{name}}!", "next": "onward"},
            {"id": "onward", "type": "jump", "to": "notify"},
            {"id": "notify", "type": "button", "title": "Enable notifications", "action": "enable-notifications", "next": "topic"},
            {"id": "topic", "type": "choice", "text": "Choice blocks ask with a list. What will you try first?",
             "options": [{"title": "Conversations", "next": "stars"}, {"title": "Banners", "next": "stars"}, {"title": "Scenarios", "next": "stars"}]},
            {"id": "stars", "type": "rating", "text": "Rating blocks take a number. How is the tour so far?", "scale": 5,
             "labels": {"low": "Dull", "high": "Great"}, "next": "done"},
            {"id": "done", "type": "text", "text": "All set, {{name}}. That was every block type. Tap to finish.", "font": "textBold"}
          ]
        }
        """#
}
