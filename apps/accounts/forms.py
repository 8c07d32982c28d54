from typing import ClassVar

from django import forms
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm

from .models import AVATAR_COLORS, User, name_key

NAME_TAKEN = "这个名字已有其他玩家使用（不区分大小写和全角半角），请换一个"


def _check_shown_name(form: forms.ModelForm[User], display_name: str, username: str) -> None:
    """Refuse a shown name (the display name, else the username) that another user's shown
    name equals up to case and width."""
    shown = display_name or username
    if not shown:
        return
    others = User.objects.filter(shown_key=name_key(shown))
    if form.instance.pk is not None:
        others = others.exclude(pk=form.instance.pk)
    if others.exists():
        form.add_error("display_name" if display_name else "username", NAME_TAKEN)


class RegisterForm(UserCreationForm[User]):
    """Sign-up form: username, display name (Chinese welcome) and password (twice)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")
        help_texts: ClassVar[dict[str, str]] = {
            "display_name": "其他玩家在牌桌上看到的名字，可以用中文"
        }

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        _check_shown_name(
            self, str(cleaned.get("display_name") or ""), str(cleaned.get("username") or "")
        )
        return cleaned


class ProfileForm(forms.ModelForm[User]):
    """Change one's display name, avatar colour and email (for 忘记密码)."""

    avatar_color = forms.ChoiceField(
        label="头像颜色",
        choices=[("", "自动"), *AVATAR_COLORS],
        required=False,
        widget=forms.RadioSelect(attrs={"class": "swatches"}),
    )

    class Meta:
        model = User
        fields = ("display_name", "avatar_color", "email")
        labels: ClassVar[dict[str, str]] = {"email": "邮箱"}
        help_texts: ClassVar[dict[str, str]] = {
            "display_name": "其他玩家在牌桌上看到的名字，头像显示它的第一个字",
            "email": "选填；忘记密码时把重置链接发到这里",
        }

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        _check_shown_name(self, str(cleaned.get("display_name") or ""), self.instance.username)
        return cleaned


class ChinesePasswordResetForm(PasswordResetForm):
    """忘记密码: the email field, labelled in Chinese."""

    email = forms.EmailField(
        label="注册时填写的邮箱",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
