from typing import ClassVar

from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import User


class RegisterForm(UserCreationForm[User]):
    """Sign-up form: username, display name (Chinese welcome) and password (twice)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")
        help_texts: ClassVar[dict[str, str]] = {
            "display_name": "其他玩家在牌桌上看到的名字，可以用中文"
        }


class ProfileForm(forms.ModelForm[User]):
    """Change one's display name."""

    class Meta:
        model = User
        fields = ("display_name",)
        help_texts: ClassVar[dict[str, str]] = {"display_name": "其他玩家在牌桌上看到的名字"}
