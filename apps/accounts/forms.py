from typing import ClassVar

from django import forms
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm

from .models import AVATAR_COLORS, User


class RegisterForm(UserCreationForm[User]):
    """Sign-up form: username, display name (Chinese welcome) and password (twice)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")
        help_texts: ClassVar[dict[str, str]] = {
            "display_name": "其他玩家在牌桌上看到的名字，可以用中文"
        }


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


class ChinesePasswordResetForm(PasswordResetForm):
    """忘记密码: the email field, labelled in Chinese."""

    email = forms.EmailField(
        label="注册时填写的邮箱",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
