from django.contrib.auth.forms import UserCreationForm

from .models import User


class RegisterForm(UserCreationForm):
    """Sign-up form: username, display name and password (twice)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")
